// The embedded store. PGlite is a single database session, so every user of it (our queries, our
// transactions and the job queue) goes through one lock held from a transaction's BEGIN to its end;
// without it a queue statement would land inside an open transaction of ours.
import { mkdir } from 'node:fs/promises';
import { PGlite, types } from '@electric-sql/pglite';
import { fromPglite } from 'pg-boss';
import type { Database, Queryable, QueryResult } from './database.ts';

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
  const pglite = await PGlite.create({
    dataDir,
    parsers: { [types.INT8]: (value: string) => Number(value) },
  });
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
    close: () => lock.run(() => pglite.close()),
  };
}
