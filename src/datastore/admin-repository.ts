// SQL for the control panel's resources: datastores, API keys and the maintenance switch.
import type { Queryable } from '../db/database.ts';

export interface DatastoreRow {
  name: string;
  description: string | null;
  created_at: Date;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  secret_digest: Uint8Array;
  datastores: string[];
  rate_limit_per_minute: number | null;
  created_by: string;
  created_at: Date;
}

const MAINTENANCE_KEY = 'maintenance';

export const datastoreRepository = {
  /** Answers undefined when the name is taken. */
  async insert(db: Queryable, name: string, description: string | null): Promise<DatastoreRow | undefined> {
    const { rows } = await db.query<DatastoreRow>(
      `INSERT INTO datastores (name, description) VALUES ($1, $2)
       ON CONFLICT (name) DO NOTHING RETURNING name, description, created_at`,
      [name, description],
    );
    return rows[0];
  },

  async list(db: Queryable): Promise<DatastoreRow[]> {
    return (
      await db.query<DatastoreRow>('SELECT name, description, created_at FROM datastores ORDER BY name')
    ).rows;
  },

  /** Replaces the datastore's entity-name labels; answers false when there is no such datastore. */
  async setLabels(db: Queryable, name: string, labels: Record<string, string>): Promise<boolean> {
    const { rowCount } = await db.query('UPDATE datastores SET labels = $2 WHERE name = $1', [
      name,
      JSON.stringify(labels),
    ]);
    return (rowCount ?? 0) > 0;
  },

  /** The entity-name labels of the named datastores (a datastore without labels answers {}). */
  async labels(db: Queryable, names: string[]): Promise<Map<string, Record<string, string>>> {
    const { rows } = await db.query<{ name: string; labels: Record<string, string> }>(
      'SELECT name, labels FROM datastores WHERE name = ANY($1::text[])',
      [names],
    );
    return new Map(rows.map((row) => [row.name, row.labels]));
  },

  async exists(db: Queryable, name: string): Promise<boolean> {
    return (await db.query('SELECT 1 FROM datastores WHERE name = $1', [name])).rows.length > 0;
  },

  /** Deletes the datastore and, by cascade, its entities, references, attributes, files and chunks. */
  async remove(db: Queryable, name: string): Promise<{ entities: number; files: number } | undefined> {
    const { rows } = await db.query<{ entities: number; files: number }>(
      `SELECT (SELECT count(*) FROM entities WHERE datastore = $1)::int AS entities,
              (SELECT count(*) FROM entity_files WHERE datastore = $1 AND complete)::int AS files`,
      [name],
    );
    const removed = await db.query('DELETE FROM datastores WHERE name = $1', [name]);
    return removed.rowCount > 0 ? rows[0] : undefined;
  },
};

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
    await db.query('DELETE FROM rate_limit_counters WHERE key = $1', [id]);
    return removed.rowCount > 0;
  },
};

export const settingsRepository = {
  async maintenance(db: Queryable): Promise<{ enabled: boolean; updated_at: Date | null }> {
    const { rows } = await db.query<{ value: { enabled?: unknown }; updated_at: Date }>(
      'SELECT value, updated_at FROM settings WHERE key = $1',
      [MAINTENANCE_KEY],
    );
    const row = rows[0];
    return { enabled: row?.value.enabled === true, updated_at: row?.updated_at ?? null };
  },

  async setMaintenance(db: Queryable, enabled: boolean): Promise<{ enabled: boolean; updated_at: Date }> {
    const { rows } = await db.query<{ updated_at: Date }>(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, now())
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now() RETURNING updated_at`,
      [MAINTENANCE_KEY, JSON.stringify({ enabled })],
    );
    return { enabled, updated_at: (rows[0] as { updated_at: Date }).updated_at };
  },
};
