// Numbered SQL migrations (migrations/NNN_name.sql), applied in order, every pending one in one transaction
// (docs/decisions.md#migrations): a migration that fails leaves the schema as it was, with none of the set
// applied. The transaction's advisory lock keeps several processes starting against one PostgreSQL from
// racing: the later ones wait, then find nothing pending.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
const ADVISORY_LOCK_KEY = 7_131_977;

export interface Migration {
  id: number;
  name: string;
  sql: string;
}

export async function readMigrations(): Promise<Migration[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((file) => /^\d{3}_[\w-]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({
      id: Number(file.slice(0, 3)),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(path.join(MIGRATIONS_DIR, file), 'utf8'),
    })),
  );
}

/** Applies every migration not applied yet, all in one transaction; answers the names it applied. */
export async function migrate(db: Database): Promise<string[]> {
  const migrations = await readMigrations();
  return db.transaction(
    async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [ADVISORY_LOCK_KEY]);
      await tx.exec(
        'CREATE TABLE IF NOT EXISTS lethe_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const applied = new Set(
        (await tx.query<{ id: number }>('SELECT id FROM lethe_migrations')).rows.map((row) => row.id),
      );
      const pending = migrations.filter((migration) => !applied.has(migration.id));
      for (const migration of pending) {
        await tx.exec(migration.sql);
        await tx.query('INSERT INTO lethe_migrations (id, name) VALUES ($1, $2)', [
          migration.id,
          migration.name,
        ]);
      }
      return pending.map((migration) => migration.name);
    },
    { closeAfter: true },
  );
}
