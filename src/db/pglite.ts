// The embedded store. PGlite is a single database session, so every user of it (our queries, our
// transactions and the job queue) goes through one lock held from a transaction's BEGIN to its end;
// without it a queue statement would land inside an open transaction of ours.
//
// PGlite does not lock its data dir: a second process opening it (a `lethe` command while `serve` runs)
// would write the same files and corrupt the store. The data dir is therefore locked for as long as it
// is open (proper-lockfile: a lock directory whose mtime the holder refreshes; a holder killed without
// releasing it leaves a lock that turns stale after STALE_MS, which a restart waits out).
import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { fromPglite } from 'pg-boss';
import lockfile from 'proper-lockfile';
import type { Database, Queryable, QueryResult } from './database.ts';

const STALE_MS = 10_000;
const LOCK_REFRESH_MS = 2_000;

/** The embedded store's data dir is open in another process. */
export class DataDirInUseError extends Error {}

async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  try {
    return await lockfile.lock(dataDir, {
      stale: STALE_MS,
      update: LOCK_REFRESH_MS,
      // Long enough for the lock of a killed process to turn stale, so a restart right after a crash
      // opens the store instead of failing.
      retries: { retries: Math.ceil(STALE_MS / 1000) + 2, factor: 1, minTimeout: 1000, maxTimeout: 1000 },
      realpath: false,
      onCompromised: (error) => {
        process.emitWarning(`the lock of the embedded store ${dataDir} was lost: ${error.message}`);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new DataDirInUseError(
        `The embedded store in ${dataDir} is open in another Lethe process. Stop that process first, or set DATABASE_URL so that several processes share PostgreSQL.`,
      );
    }
    throw error;
  }
}

class SerialLock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work, work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

function session(pglite: PGlite): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await pglite.query<Row>(sql, params as unknown[]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await pglite.exec(sql);
    },
  };
}

export async function openPglite(dataDir: string): Promise<Database> {
  await mkdir(dataDir, { recursive: true });
  const unlock = await lockDataDir(dataDir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      dataDir,
      parsers: { [types.INT8]: (value: string) => Number(value) },
    });
  } catch (error) {
    await unlock();
    throw error;
  }
  const lock = new SerialLock();
  const direct = session(pglite);
  const lockedPglite = {
    query: (sql: string, params?: unknown[]) => lock.run(() => pglite.query(sql, params)),
    exec: (sql: string) => lock.run(() => pglite.exec(sql)),
  };

  return {
    kind: 'pglite',
    query: (sql, params) => lock.run(() => direct.query(sql, params)),
    exec: (sql) => lock.run(() => direct.exec(sql)),
    transaction: (work) =>
      lock.run(async () => {
        await pglite.exec('BEGIN');
        try {
          const result = await work(direct);
          await pglite.exec('COMMIT');
          return result;
        } catch (error) {
          await pglite.exec('ROLLBACK');
          throw error;
        }
      }),
    queueDatabase: () => fromPglite(lockedPglite as unknown as PGlite),
    close: () =>
      lock.run(async () => {
        try {
          await pglite.close();
        } finally {
          await unlock();
        }
      }),
  };
}
