// SQL of the console's read-only browse of a datastore: how many entities each datastore holds (counted
// up to a cap, so a list of datastores never counts millions of rows), and one page of entities with
// their attribute and file names, never a value (nothing sealed is read here).
import type { Queryable } from '../db/database.ts';

/** Entities counted per datastore at most; a larger datastore shows "more than" this. */
export const ENTITY_COUNT_CAP = 100_000;

export interface EntityCount {
  count: number;
  capped: boolean;
}

export interface BrowsedEntityRow {
  id: string;
  name: string;
  created_at: Date;
  parents: string[];
  /** [attribute name, whether it holds a value] */
  attributes: [string, boolean][];
  /** [attribute name, size in bytes] */
  files: [string, number][];
}

/** Each datastore's entity count, exact up to ENTITY_COUNT_CAP (one index range per datastore). */
export async function countEntities(db: Queryable): Promise<Map<string, EntityCount>> {
  const { rows } = await db.query<{ name: string; count: number }>(
    `SELECT d.name,
            (SELECT count(*) FROM (SELECT 1 FROM entities e WHERE e.datastore = d.name LIMIT $1) AS counted)::int AS count
       FROM datastores d`,
    [ENTITY_COUNT_CAP + 1],
  );
  return new Map(
    rows.map((row) => [
      row.name,
      { count: Math.min(row.count, ENTITY_COUNT_CAP), capped: row.count > ENTITY_COUNT_CAP },
    ]),
  );
}

/** One datastore's entity count, as countEntities counts it. */
export async function countEntitiesOf(db: Queryable, datastore: string): Promise<EntityCount> {
  const { rows } = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM (SELECT 1 FROM entities WHERE datastore = $1 LIMIT $2) AS counted`,
    [datastore, ENTITY_COUNT_CAP + 1],
  );
  const count = rows[0]?.count ?? 0;
  return { count: Math.min(count, ENTITY_COUNT_CAP), capped: count > ENTITY_COUNT_CAP };
}

/** Entities of the datastore, oldest first, `limit` from `offset`, with names only (no value). */
export async function listEntityPage(
  db: Queryable,
  datastore: string,
  limit: number,
  offset: number,
): Promise<BrowsedEntityRow[]> {
  const { rows } = await db.query<BrowsedEntityRow>(
    `SELECT e.id, e.name, e.created_at,
            COALESCE((SELECT array_agg(r.parent_id::text ORDER BY r.parent_id)
                        FROM entity_references r WHERE r.child_id = e.id), '{}') AS parents,
            COALESCE((SELECT jsonb_agg(jsonb_build_array(a.name, a.blind_index IS NOT NULL) ORDER BY a.name)
                        FROM entity_attributes a WHERE a.entity_id = e.id), '[]'::jsonb) AS attributes,
            COALESCE((SELECT jsonb_agg(jsonb_build_array(f.attribute_name, f.size) ORDER BY f.attribute_name)
                        FROM entity_files f WHERE f.entity_id = e.id AND f.complete), '[]'::jsonb) AS files
       FROM entities e
      WHERE e.datastore = $1
      ORDER BY e.created_at, e.id
      LIMIT $2 OFFSET $3`,
    [datastore, limit, offset],
  );
  return rows;
}
