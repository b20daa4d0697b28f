// Changing and deleting entity rows by id so that every plan probes the primary key once per id, and so
// that concurrent writes to one entity wait for each other (entity-document.ts). One id (most writes) is
// one UPDATE by equality. Several ids are locked first, each through its own probe (the LATERAL form of
// subject-store.ts's WANTED_IDS), and then changed by the rows' physical addresses: an UPDATE or a DELETE
// by `id = ANY($2)` may take a generic plan that reads every entity of the datastore
// (test/datastore/generic-plans.test.ts), and a lock taken in the statement that changes the row would
// leave the change computed from a snapshot older than the lock. The addresses cannot move in between:
// the rows are locked by this transaction.
import type { Queryable } from '../db/database.ts';
import { WANTED_IDS } from './subject-store.ts';

/** Locks the entities `$2` of the datastore `$1`, one probe each; answers their rows' addresses. */
const LOCK_ENTITIES = `
  SELECT found.ctid::text AS address
    FROM ${WANTED_IDS}
   CROSS JOIN LATERAL (SELECT ctid FROM entities WHERE datastore = $1 AND id = wanted.id OFFSET 0 FOR UPDATE) AS found`;

/** The rows of `ids` (lower-case UUIDs) locked, by address; none for ids the datastore does not hold. */
export async function lockEntities(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ address: string }>(LOCK_ENTITIES, [datastore, ids]);
  return rows.map((row) => row.address);
}

export interface DocumentChange {
  one: string;
  many: string;
}

/**
 * The statements of a change whose SET list is `set` (documentSet), with its own data as `$3`. The rows
 * of several are found by their addresses alone (a condition on the datastore would offer the planner
 * its index instead of the addresses); `$1` then only names the datastore in the answer.
 */
export const documentChange = (set: string): DocumentChange => ({
  one: `UPDATE entities e SET ${set} WHERE e.datastore = $1 AND e.id = $2::uuid RETURNING e.id`,
  many: `UPDATE entities e SET ${set} WHERE e.ctid = ANY($2::tid[]) RETURNING e.id, $1::text AS datastore`,
});

/** Runs `change` on the entities `ids` (lower-case UUIDs) of the datastore; answers the ids changed. */
export async function changeDocuments(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
  change: DocumentChange,
  data: string,
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const target = ids.length === 1 ? ids[0] : await lockEntities(db, datastore, ids);
  if (Array.isArray(target) && target.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(ids.length === 1 ? change.one : change.many, [
    datastore,
    target,
    data,
  ]);
  return new Set(rows.map((row) => row.id));
}

/** Deletes the entities `ids` of the datastore (their rows cascade); answers the ids deleted. */
export async function deleteEntityRows(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const addresses = await lockEntities(db, datastore, ids);
  if (addresses.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'DELETE FROM entities WHERE ctid = ANY($1::tid[]) RETURNING id',
    [addresses],
  );
  return new Set(rows.map((row) => row.id));
}
