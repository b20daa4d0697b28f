// SQL for the control panel's datastore resources: datastores and the maintenance switch (API keys are
// src/api-keys/repository.ts's).
import type { Queryable } from '../db/database.ts';

export interface DatastoreRow {
  name: string;
  description: string | null;
  created_at: Date;
}

export type DatastoreWithLabels = DatastoreRow & { labels: Record<string, string> };

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

  async list(db: Queryable): Promise<DatastoreWithLabels[]> {
    return (
      await db.query<DatastoreWithLabels>(
        'SELECT name, description, created_at, labels FROM datastores ORDER BY name',
      )
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

  /** Whether the datastore exists, kept from deletion until `db`'s transaction ends. */
  async holdExisting(db: Queryable, name: string): Promise<boolean> {
    return (await db.query('SELECT 1 FROM datastores WHERE name = $1 FOR KEY SHARE', [name])).rows.length > 0;
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
