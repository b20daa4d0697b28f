-- Human labels of a datastore's entity names ("users" -> "Your account"), shown in the report.html of an
-- access package instead of the name; a name without a label is shown as it is.
ALTER TABLE datastores ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb;
