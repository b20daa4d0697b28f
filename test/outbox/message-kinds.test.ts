// Every kind of message Lethe words must fit the outbox's table: migrations written side by side each
// redefined the kind constraint with their own kinds only, and the last one to run refused the others'
// messages (an extension answered 500). Each kind of MESSAGE_KINDS is inserted into a migrated database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MESSAGE_KINDS } from '../../src/outbox/repository.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('outbox message kinds', () => {
  let database: TestDatabase;
  let client: pg.Client;
  before(async () => {
    database = await createTestDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  after(async () => {
    await client.end();
    await database.drop();
  });

  it('takes a message of every kind the code words, and refuses an unknown one', async () => {
    for (const kind of MESSAGE_KINDS) {
      await client.query(
        `INSERT INTO outbox_messages (id, privacy_request_id, kind, content_sealed) VALUES ($1, NULL, $2, '\\x00')`,
        [`msg_${kind}`, kind],
      );
    }
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_messages');
    assert.equal(rows[0]?.n, MESSAGE_KINDS.length);
    await assert.rejects(
      client.query(
        `INSERT INTO outbox_messages (id, privacy_request_id, kind, content_sealed) VALUES ('msg_x', NULL, 'unknown', '\\x00')`,
      ),
      /outbox_messages_kind_check/,
    );
  });
});
