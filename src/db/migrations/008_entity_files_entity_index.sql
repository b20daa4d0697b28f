-- Deleting an entity cascades to its files. The only index on entity_files.entity_id is partial (bound
-- files), which the cascade's "entity_id = $1" cannot use, so every entity deletion scanned the whole
-- table: forget and entity/delete slowed with the number of files in the store. A plain index fixes it.
CREATE INDEX entity_files_entity_idx ON entity_files (entity_id);
