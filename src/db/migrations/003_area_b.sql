-- Area B: named datastores, the API keys that may use them, the subject data they hold (entities,
-- sealed attribute values with a blind index, sealed file chunks), the shared rate-limit counters and
-- the append-only audit log. Personal values never appear here in clear: *_sealed columns hold
-- AES-256-GCM boxes (src/crypto/secret-box.ts), blind_index an HMAC-SHA-256 of the normalised value.
CREATE TABLE datastores (
  name text PRIMARY KEY CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
  description text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- A key is shown once as lk_<id>_<secret>; only the SHA-256 digest of the secret is kept. Its datastores
-- may name stores not created yet ('*' grants every store). Revocation deletes the row.
CREATE TABLE api_keys (
  id text PRIMARY KEY,
  name text NOT NULL,
  secret_digest bytea NOT NULL,
  datastores text[] NOT NULL,
  rate_limit_per_minute integer CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute > 0),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE entities (
  id uuid PRIMARY KEY,
  datastore text NOT NULL REFERENCES datastores (name) ON DELETE CASCADE,
  name text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entities_datastore_idx ON entities (datastore, created_at);

-- child_id references parent_id; both in the same datastore (checked on insert).
CREATE TABLE entity_references (
  child_id uuid NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  parent_id uuid NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  PRIMARY KEY (child_id, parent_id)
);
CREATE INDEX entity_references_parent_idx ON entity_references (parent_id);

-- value_sealed NULL is an attribute whose value is null (the nullify strategy); a deleted attribute has
-- no row. blind_index is NULL exactly when the value is.
CREATE TABLE entity_attributes (
  entity_id uuid NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
  name text NOT NULL,
  datastore text NOT NULL,
  value_sealed bytea,
  blind_index bytea,
  PRIMARY KEY (entity_id, name),
  CHECK ((value_sealed IS NULL) = (blind_index IS NULL))
);
CREATE INDEX entity_attributes_blind_index_idx ON entity_attributes (datastore, blind_index);

-- A file attribute. Uploads are staged (complete = false, entity and name not yet bound) while the
-- multipart stream arrives, then bound in one short transaction; stale staged rows are swept.
CREATE TABLE entity_files (
  id uuid PRIMARY KEY,
  datastore text NOT NULL REFERENCES datastores (name) ON DELETE CASCADE,
  entity_id uuid REFERENCES entities (id) ON DELETE CASCADE,
  attribute_name text,
  file_name_sealed bytea,
  content_type text NOT NULL,
  size bigint NOT NULL DEFAULT 0,
  chunk_count integer NOT NULL DEFAULT 0,
  complete boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (NOT complete OR (entity_id IS NOT NULL AND attribute_name IS NOT NULL AND file_name_sealed IS NOT NULL))
);
CREATE UNIQUE INDEX entity_files_attribute_idx ON entity_files (entity_id, attribute_name) WHERE complete;
CREATE INDEX entity_files_staged_idx ON entity_files (created_at) WHERE NOT complete;

CREATE TABLE entity_file_chunks (
  file_id uuid NOT NULL REFERENCES entity_files (id) ON DELETE CASCADE,
  chunk_no integer NOT NULL CHECK (chunk_no >= 0),
  data_sealed bytea NOT NULL,
  PRIMARY KEY (file_id, chunk_no)
);

-- Fixed-window request counters shared by every API process when the store is PostgreSQL.
CREATE TABLE rate_limit_counters (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  window_ends_at timestamptz NOT NULL
);

-- Who did what to which subject, never with attribute values. The application only INSERTs and SELECTs;
-- the triggers below refuse every UPDATE, DELETE and TRUNCATE.
CREATE TABLE audit_log (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  action text NOT NULL,
  datastore text,
  entity_ids text[] NOT NULL DEFAULT '{}',
  actor text NOT NULL,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}',
  -- The SAR recipient, sealed under the datastore's value key (a personal value like any other).
  recipient_sealed bytea
);
CREATE INDEX audit_log_datastore_idx ON audit_log (datastore, seq);
CREATE INDEX audit_log_action_idx ON audit_log (action, seq);
CREATE INDEX audit_log_entity_ids_idx ON audit_log USING gin (entity_ids);

CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
