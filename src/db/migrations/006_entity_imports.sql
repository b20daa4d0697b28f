-- Resumable `lethe import`: where each import of a file into a datastore stands. The importer updates
-- its row in the same transaction as the batch of entities it covers, so after Ctrl-C or a crash a
-- re-run neither repeats nor skips a line.
CREATE TABLE entity_imports (
  id uuid PRIMARY KEY,
  datastore text NOT NULL REFERENCES datastores (name) ON DELETE CASCADE,
  -- absolute path of the imported file on the host that ran the import
  source text NOT NULL,
  -- the first line (1-based) and byte not yet imported
  next_line bigint NOT NULL CHECK (next_line >= 1),
  next_byte bigint NOT NULL CHECK (next_byte >= 0),
  -- SHA-256 of the file's bytes [0, next_byte): a file changed under a checkpoint is refused, not resumed
  prefix_digest bytea NOT NULL,
  created bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (datastore, source)
);

-- One row per failed line. The message may quote part of the line (personal data), so it is sealed
-- under the datastore's value key like any attribute value.
CREATE TABLE entity_import_errors (
  import_id uuid NOT NULL REFERENCES entity_imports (id) ON DELETE CASCADE,
  line bigint NOT NULL,
  message_sealed bytea NOT NULL,
  PRIMARY KEY (import_id, line)
);
