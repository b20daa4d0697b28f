// The migrations run on a connection of their own, closed after them (src/db/migrate.ts): its server
// process has every catalog in its caches, memory that npm start's tree would otherwise keep (bench/README.md,
// issue 41). A transaction without `closeAfter` keeps its connection for the next caller.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('the connection of the migrations', () => {
  let database: TestDatabase;
  let db: Database;
  // Watches from outside the pool, whose own connections are what is watched.
  let observer: pg.Client;

  before(async () => {
    database = await createTestDatabase({ migrated: false });
    db = await openPostgres(database.url, { kind: 'postgres' });
    observer = new pg.Client({ connectionString: database.url });
    await observer.connect();
  });

  after(async () => {
    await observer.end();
    await db.close();
    await database.drop();
  });

  /** The server processes connected to this database, other than the observer's. */
  async function backends(): Promise<number[]> {
    const { rows } = await observer.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return rows.map((row) => row.pid);
  }

  /** Waits (at most 10 s) until `pid`'s server process has gone, as it does once its client closes. */
  async function gone(pid: number): Promise<boolean> {
    const deadline = Date.now() + 10_000;
    while ((await backends()).includes(pid) && Date.now() < deadline) await sleep(50);
    return !(await backends()).includes(pid);
  }

  it('closes the connection that applied them', async () => {
    const before = new Set(await backends());
    // The migrations take an advisory lock first; the process holding it is the one that applies them.
    let migrating: number | undefined;
    const watch = (async () => {
      const deadline = Date.now() + 60_000;
      while (migrating === undefined && Date.now() < deadline) {
        const { rows } = await observer.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        );
        migrating = rows[0]?.pid;
        if (migrating === undefined) await sleep(5);
      }
    })();
    const applied = await migrate(db);
    await watch;
    assert.ok(applied.length > 30, 'every migration was applied on the empty database');
    assert.ok(migrating !== undefined && !before.has(migrating), 'the migrations had a process of their own');
    assert.ok(await gone(migrating), 'its server process has gone');
  });

  it('keeps the connection of a transaction without closeAfter', async () => {
    const pid = await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      return rows[0]?.pid as number;
    });
    await sleep(200);
    assert.ok((await backends()).includes(pid), 'the pool kept it');
    const closed = await db.transaction(
      async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        return rows[0]?.pid as number;
      },
      { closeAfter: true },
    );
    assert.ok(await gone(closed), 'closeAfter closed it');
  });
});
