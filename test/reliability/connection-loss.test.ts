// A PostgreSQL connection lost between two statements of a transaction, on a private PostgreSQL
// cluster that the test crashes (pg_ctl stop -m immediate) while the transaction waits. Proves: the
// transaction rejects with an error the HTTP layer answers as 503 (never an unhandled 'error' event that
// ends the process), and the pool hands out a working connection once the server is back.
// The full outage under load is test/chaos/database-outage.chaos.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStoreUnavailable } from '../../src/db/database.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { type PrivatePostgres, startPrivatePostgres } from './support/private-postgres.ts';

describe('a connection lost inside a transaction', () => {
  let postgres: PrivatePostgres;
  before(async () => {
    postgres = await startPrivatePostgres();
  });
  after(() => postgres?.dispose());

  it('rejects a transaction whose connection dies between two statements, without ending the process', async () => {
    const db = await openPostgres(postgres.url, { kind: 'postgres' });
    try {
      const outcome = db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await postgres.crash();
        // The socket's error arrives while the client is checked out and idle, between two statements.
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query('SELECT 2');
      });
      await assert.rejects(outcome, (error) => isStoreUnavailable(error));
      await postgres.start();
      const { rows } = await db.query<{ answer: number }>('SELECT 42 AS answer');
      assert.deepEqual(rows, [{ answer: 42 }], 'the pool hands out a fresh connection afterwards');
    } finally {
      await db.close();
    }
  });
});
