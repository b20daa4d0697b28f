-- Entity ids are scoped to their datastore (docs/decisions.md#entity-ids-belong-to-their-datastore): the same id may exist in two
-- datastores, and a key learns nothing of another datastore's ids (an id taken there is free here).
-- Every table that names an entity now names it by (datastore, id), and its foreign keys say so, so a
-- reference, an attribute or a file can never cross datastores.
ALTER TABLE entity_references ADD COLUMN datastore text;
UPDATE entity_references r SET datastore = e.datastore FROM entities e WHERE e.id = r.child_id;
ALTER TABLE entity_references ALTER COLUMN datastore SET NOT NULL;

ALTER TABLE entity_references DROP CONSTRAINT entity_references_child_id_fkey;
ALTER TABLE entity_references DROP CONSTRAINT entity_references_parent_id_fkey;
ALTER TABLE entity_attributes DROP CONSTRAINT entity_attributes_entity_id_fkey;
ALTER TABLE entity_files DROP CONSTRAINT entity_files_entity_id_fkey;

ALTER TABLE entities DROP CONSTRAINT entities_pkey;
ALTER TABLE entities ADD PRIMARY KEY (datastore, id);

ALTER TABLE entity_references DROP CONSTRAINT entity_references_pkey;
ALTER TABLE entity_references ADD PRIMARY KEY (datastore, child_id, parent_id);
ALTER TABLE entity_references ADD CONSTRAINT entity_references_child_fkey
  FOREIGN KEY (datastore, child_id) REFERENCES entities (datastore, id) ON DELETE CASCADE;
ALTER TABLE entity_references ADD CONSTRAINT entity_references_parent_fkey
  FOREIGN KEY (datastore, parent_id) REFERENCES entities (datastore, id) ON DELETE CASCADE;
DROP INDEX entity_references_parent_idx;
CREATE INDEX entity_references_parent_idx ON entity_references (datastore, parent_id);

ALTER TABLE entity_attributes DROP CONSTRAINT entity_attributes_pkey;
ALTER TABLE entity_attributes ADD PRIMARY KEY (datastore, entity_id, name);
ALTER TABLE entity_attributes ADD CONSTRAINT entity_attributes_entity_fkey
  FOREIGN KEY (datastore, entity_id) REFERENCES entities (datastore, id) ON DELETE CASCADE;

-- entity_id stays NULL while a file is staged; the foreign key is checked once it is bound.
ALTER TABLE entity_files ADD CONSTRAINT entity_files_entity_fkey
  FOREIGN KEY (datastore, entity_id) REFERENCES entities (datastore, id) ON DELETE CASCADE;
DROP INDEX entity_files_attribute_idx;
CREATE UNIQUE INDEX entity_files_attribute_idx ON entity_files (datastore, entity_id, attribute_name) WHERE complete;
DROP INDEX entity_files_entity_idx;
CREATE INDEX entity_files_entity_idx ON entity_files (datastore, entity_id);
