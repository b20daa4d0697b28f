// Which `<table>.<attribute>` names some entity of some datastore holds: what a correction may target.
// A read of the subject store's own tables, so that other domains never read them.
import type { Queryable } from '../db/database.ts';

export async function knownAttributeNames(
  db: Queryable,
  names: readonly { table: string; attribute: string }[],
): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const { rows } = await db.query<{ known: string }>(
    `SELECT DISTINCT wanted.t || '.' || wanted.a AS known
       FROM unnest($1::text[], $2::text[]) AS wanted(t, a)
      WHERE EXISTS (SELECT FROM entities e JOIN entity_attributes ea ON ea.datastore = e.datastore AND ea.entity_id = e.id
                     WHERE e.name = wanted.t AND ea.name = wanted.a)`,
    [names.map((name) => name.table), names.map((name) => name.attribute)],
  );
  return new Set(rows.map((row) => row.known));
}
