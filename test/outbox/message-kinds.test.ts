// Every kind of message Lethe words must fit the outbox's table. Migrations written side by side each
// redefined a kind constraint with their own kinds only, and the last one to run refused the others' messages
// (an extension answered 500). Since migration 025 the kinds are declared once, in MESSAGE_KINDS: the table
// checks only their shape, and the one function that turns messages into the INSERT's parameter refuses a kind
// outside the list.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  insertMessagesSql,
  MESSAGE_KINDS,
  type NewMessage,
  messagesValue,
} from '../../src/outbox/repository.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

function message(kind: string): NewMessage {
  return {
    id: `msg_${kind}`,
    privacyRequestId: null,
    kind,
    contentSealed: Buffer.from([0]),
  } as unknown as NewMessage;
}

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

  it('takes a message of every kind the code words, through the one insert every caller uses', async () => {
    await client.query(insertMessagesSql('$1', 'true'), [messagesValue(MESSAGE_KINDS.map(message))]);
    const { rows } = await client.query<{ kind: string }>(
      'SELECT kind FROM outbox_messages ORDER BY created_at',
    );
    assert.deepEqual(
      rows.map((row) => row.kind),
      [...MESSAGE_KINDS],
    );
  });

  it('refuses a kind outside MESSAGE_KINDS before the statement, and a malformed one in the table', async () => {
    assert.throws(() => messagesValue([message('not_a_kind')]), /unknown outbox message kind "not_a_kind"/);
    await assert.rejects(
      client.query(
        `INSERT INTO outbox_messages (id, privacy_request_id, kind, content_sealed) VALUES ('msg_x', NULL, 'Bad Kind!', '\\x00')`,
      ),
      /outbox_messages_kind_shape/,
    );
  });
});
