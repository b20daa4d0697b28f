// SQL of the rule runner beyond the subject store: what a run goes over (the datastores, and the storage
// destinations where access packages go) and which erasures of a privacy request already committed
// (their audit entries, written in the same transaction as the erasure, are the proof a rerun reads; index
// audit_log_actor_idx of migration 007 keeps that a lookup of the request's own few entries). It never
// writes subject data.
import type { Queryable } from '../../db/database.ts';

export const ACCESS_ACTION = 'privacy_request.access';
export const ERASURE_ACTION = 'privacy_request.erasure';

export interface StorageDestination {
  id: string;
  key: string;
  type: string;
  location: string;
}

export interface RecordedErasure {
  datastore: string;
  details: Record<string, unknown>;
}

/**
 * What one rule run goes over, read by one statement: the names of the datastores (as
 * datastore/subject-store.ts lists them) and the storage destinations, each in key order.
 */
export async function readRunCatalog(
  db: Queryable,
): Promise<{ datastores: string[]; destinations: StorageDestination[] }> {
  const { rows } = await db.query<{ datastores: string[]; destinations: StorageDestination[] }>(
    `SELECT COALESCE((SELECT array_agg(name ORDER BY name) FROM datastores), '{}') AS datastores,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('id', id, 'key', key, 'type', type, 'location', location)
                                       ORDER BY key)
                        FROM storage_destinations), '[]'::jsonb) AS destinations`,
  );
  return rows[0] as { datastores: string[]; destinations: StorageDestination[] };
}

export async function listStorageDestinations(db: Queryable): Promise<StorageDestination[]> {
  const { rows } = await db.query<StorageDestination>(
    'SELECT id, key, type, location FROM storage_destinations ORDER BY key',
  );
  return rows;
}

/** The erasure entries the request left in one datastore. */
export async function recordedErasures(
  db: Queryable,
  privacyRequestId: string,
  datastore: string,
): Promise<RecordedErasure[]> {
  const { rows } = await db.query<RecordedErasure>(
    `SELECT datastore, details FROM audit_log WHERE actor = $1 AND action = $2 AND datastore = $3 ORDER BY seq`,
    [privacyRequestId, ERASURE_ACTION, datastore],
  );
  return rows;
}

/**
 * Serialises two runs of the same request over the same datastore until the transaction ends, so that a
 * run started while another is still erasing waits for it and then sees its audit entries.
 */
export async function lockRequestDatastore(
  tx: Queryable,
  privacyRequestId: string,
  datastore: string,
): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('lethe-rule-run:' || $1 || ':' || $2, 0))", [
    privacyRequestId,
    datastore,
  ]);
}
