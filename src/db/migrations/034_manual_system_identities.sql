-- The subject's identifiers a manual system needs to find the record (issue 37): identity kinds such as
-- email, phone_number or a custom identity's key. The respondent's page shows the request's values of
-- these kinds only; a system that names none shows none.
ALTER TABLE manual_systems ADD COLUMN identities text[] NOT NULL DEFAULT '{}';
