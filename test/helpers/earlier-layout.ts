// Entities put back into the layout before migration 029 (one row per attribute holding its sealed value,
// references and files in their own tables, no document on the entity row), as a store upgraded from an
// earlier release holds them: what the online move (src/datastore/entity-layout.ts) starts from. The same
// sealed boxes move back into entity_attributes, so an entity answers exactly what it answered before.
import type { Queryable } from '../../src/db/database.ts';

export async function toEarlierLayout(db: Queryable, datastore: string): Promise<number> {
  await db.query(
    `UPDATE entity_attributes a SET value_sealed = decode(e.attributes ->> a.name, 'base64')
       FROM entities e
      WHERE e.datastore = $1 AND a.datastore = e.datastore AND a.entity_id = e.id AND e.attributes IS NOT NULL`,
    [datastore],
  );
  const { rowCount } = await db.query(
    'UPDATE entities SET attributes = NULL, parents = NULL, files = NULL WHERE datastore = $1',
    [datastore],
  );
  await db.query(
    `UPDATE entity_layout_migration
        SET phase = 'move', moved = 0, verified = 0, mismatched = 0, mismatched_ids = '{}',
            checkpoint_datastore = NULL, checkpoint_id = NULL, started_at = NULL, moved_at = NULL,
            finished_at = NULL`,
  );
  return rowCount;
}
