-- The entity as one document (issue 41, docs/area-b.md "The entity as one document"): a read of an
-- entity becomes one primary-key fetch. Each entity row carries what a read answers:
--   attributes  {"<name>": "<sealed value, base64>" | null}: each value sealed as before (AES-256-GCM,
--               associated data <entityId>:<name>), so a box copied into another entity or name does not open;
--   parents     [["<parent id>", "<parent table>"], ...], oldest parent first;
--   files       [["<file id>", "<attribute>", "<sealed file name, base64>", "<content type>", <size>], ...].
-- entity_references, entity_files and the chunks stay as they were (the subtree walk, the downloads);
-- entity_attributes keeps one row per attribute, now the blind index alone: value_sealed is NULL in every
-- row written from here on.
--
-- The change is online: this migration only adds nullable columns (no rewrite) and an index of the rows
-- still to move. An entity whose `attributes` is NULL is in the earlier layout; src/datastore/entity-layout.ts
-- moves them in the background while the service answers (every write moves the entity it touches in its
-- own statement, every read of one not moved yet reads the earlier layout), then verifies every entity.
ALTER TABLE entities ADD COLUMN attributes jsonb, ADD COLUMN parents jsonb, ADD COLUMN files jsonb;

-- An attribute update rewrites the row; room on the page lets PostgreSQL keep it there (a HOT update, no
-- new index entries). Applies to pages written from now on.
ALTER TABLE entities SET (fillfactor = 90);

-- The entities the background move has left, found without a scan (empty once the move is done).
CREATE INDEX entities_earlier_layout_idx ON entities (datastore, id) WHERE attributes IS NULL;

-- The rows of the earlier layout keep both; rows written from now on have a blind index and no value.
ALTER TABLE entity_attributes DROP CONSTRAINT IF EXISTS entity_attributes_check;
ALTER TABLE entity_attributes ADD CONSTRAINT entity_attributes_value_has_index
  CHECK (value_sealed IS NULL OR blind_index IS NOT NULL);

-- The move's state, one row: 'move' (entities left in the earlier layout), 'verify' (every entity moved;
-- checking each, in (datastore, id) order from the checkpoint), 'done'. Counts, never values.
CREATE TABLE entity_layout_migration (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  phase text NOT NULL CHECK (phase IN ('move', 'verify', 'done')),
  moved bigint NOT NULL DEFAULT 0,
  verified bigint NOT NULL DEFAULT 0,
  mismatched bigint NOT NULL DEFAULT 0,
  -- The first entities that failed verification (ids only), at most 100.
  mismatched_ids text[] NOT NULL DEFAULT '{}',
  checkpoint_datastore text,
  checkpoint_id uuid,
  started_at timestamptz,
  moved_at timestamptz,
  finished_at timestamptz
);
INSERT INTO entity_layout_migration (phase, finished_at)
SELECT CASE WHEN EXISTS (SELECT FROM entities) THEN 'move' ELSE 'done' END,
       CASE WHEN EXISTS (SELECT FROM entities) THEN NULL ELSE now() END;
