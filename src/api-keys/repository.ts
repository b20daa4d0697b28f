// SQL of the api_keys table, its only writer: keys (their secrets as digests only), the datastores each
// may reach, and the change notices that keep every API process's admission cache honest.
import type { Queryable } from '../db/database.ts';
import { forgetCounter } from '../rate-limits/counters.ts';

export interface ApiKeyRow {
  id: string;
  name: string;
  secret_digest: Uint8Array;
  datastores: string[];
  rate_limit_per_minute: number | null;
  created_by: string;
  created_at: Date;
}

/** The LISTEN/NOTIFY channel of key revocations and datastore deletions. */
export const API_KEY_CHANGES_CHANNEL = 'lethe_api_key_changes';

export const apiKeyRepository = {
  async insert(
    db: Queryable,
    key: {
      id: string;
      name: string;
      secretDigest: Buffer;
      datastores: string[];
      rateLimitPerMinute: number | null;
      createdBy: string;
    },
  ): Promise<ApiKeyRow> {
    const { rows } = await db.query<ApiKeyRow>(
      `INSERT INTO api_keys (id, name, secret_digest, datastores, rate_limit_per_minute, created_by)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [key.id, key.name, key.secretDigest, key.datastores, key.rateLimitPerMinute, key.createdBy],
    );
    return rows[0] as ApiKeyRow;
  },

  /** Takes a deleted datastore from every key that names it; answers the ids of the keys it changed. */
  async forgetDatastore(db: Queryable, name: string): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
      `UPDATE api_keys SET datastores = array_remove(datastores, $1)
        WHERE $1 = ANY(datastores) RETURNING id`,
      [name],
    );
    return rows.map((row) => row.id).sort();
  },

  /**
   * Tells every API process, at the commit of `db`'s transaction, that the key `id` changed ('*': any key,
   * as a datastore deletion changes every key naming it), so their verification caches drop it
   * (src/api-keys/admission-cache.ts).
   */
  async announceChange(db: Queryable, id: string): Promise<void> {
    await db.query(`SELECT pg_notify('${API_KEY_CHANGES_CHANNEL}', $1)`, [id]);
  },

  async find(db: Queryable, id: string): Promise<ApiKeyRow | undefined> {
    return (await db.query<ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id])).rows[0];
  },

  /** The key, and whether the datastore `datastore` exists, in one round trip (the hot path of /api). */
  async findWithDatastore(
    db: Queryable,
    id: string,
    datastore: string,
  ): Promise<(ApiKeyRow & { datastore_exists: boolean }) | undefined> {
    return (
      await db.query<ApiKeyRow & { datastore_exists: boolean }>(
        `SELECT k.*, EXISTS (SELECT 1 FROM datastores WHERE name = $2) AS datastore_exists
           FROM api_keys k WHERE k.id = $1`,
        [id, datastore],
      )
    ).rows[0];
  },

  async list(db: Queryable): Promise<ApiKeyRow[]> {
    return (await db.query<ApiKeyRow>('SELECT * FROM api_keys ORDER BY created_at, id')).rows;
  },

  /** Deletes the key and its shared rate-limit counter (keyed by the key id). */
  async remove(db: Queryable, id: string): Promise<boolean> {
    const removed = await db.query('DELETE FROM api_keys WHERE id = $1', [id]);
    await forgetCounter(db, id);
    return removed.rowCount > 0;
  },
};
