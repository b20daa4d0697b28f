// The recording and the replay behind CI's check that PostgreSQL 15 takes every statement the suite sends
// (test/helpers/statement-replay.ts, scripts/replay-statements.ts).
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  createTestDatabase,
  startEmbeddedTestServer,
  type TestDatabase,
  type TestServer,
} from '../helpers/database.ts';
import {
  asPreparable,
  isPreparable,
  prepareEach,
  RECORDING_SETTINGS,
  recordStatements,
  type RecordedStatements,
} from '../helpers/statement-replay.ts';

describe('statement replay', () => {
  it('takes the statements PREPARE takes, after leading comments, and nothing else', () => {
    assert.equal(isPreparable('SELECT 1'), true);
    assert.equal(isPreparable('  with x AS (SELECT 1) SELECT * FROM x'), true);
    assert.equal(isPreparable('/* lethe */\n-- a note\nUPDATE t SET a = $1'), true);
    assert.equal(isPreparable('INSERT INTO t VALUES ($1)'), true);
    assert.equal(isPreparable('DELETE FROM t'), true);
    assert.equal(isPreparable('CREATE TABLE t (a int)'), false);
    assert.equal(isPreparable('BEGIN'), false);
    assert.equal(isPreparable('SET search_path = x'), false);
    assert.equal(isPreparable('selection'), false);
  });

  it('writes the typed literals pg_stat_statements made parameters as casts', () => {
    assert.equal(
      asPreparable('DELETE FROM t WHERE at < now() - interval $1 AND d = DATE $2'),
      'DELETE FROM t WHERE at < now() - $1::interval AND d = $2::DATE',
    );
    assert.equal(asPreparable('SELECT $1::interval'), 'SELECT $1::interval');
  });

  describe('on the migrated schema', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase();
    });
    after(async () => {
      await database.drop();
    });

    it("prepares Lethe's statements and names the server's reason for each it refuses", async () => {
      const { prepared, refused } = await prepareEach(database.url, [
        'SELECT id, status FROM privacy_requests WHERE id = $1',
        'SELECT lethe_no_such_function($1)',
        'SELECT missing_column FROM privacy_requests',
      ]);
      assert.deepEqual(prepared, ['SELECT id, status FROM privacy_requests WHERE id = $1']);
      assert.deepEqual(
        refused.map((refusal) => refusal.sql),
        ['SELECT lethe_no_such_function($1)', 'SELECT missing_column FROM privacy_requests'],
      );
      assert.match(refused[0]?.message ?? '', /lethe_no_such_function/);
      assert.match(refused[1]?.message ?? '', /missing_column/);
    });
  });

  describe('recorded on a server with pg_stat_statements', () => {
    let server: TestServer;
    let directory: string;
    before(async () => {
      server = await startEmbeddedTestServer(RECORDING_SETTINGS);
      directory = await mkdtemp(path.join(tmpdir(), 'lethe-statements-'));
    });
    after(async () => {
      await server.stop();
      await rm(directory, { recursive: true, force: true });
    });

    it('keeps each distinct statement sent that still prepares, its constants made parameters', async () => {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      try {
        await client.query('CREATE TABLE kept (id int, name text)');
        await client.query('CREATE TABLE dropped (id int)');
        await client.query('SELECT name FROM kept WHERE id = $1', [7]);
        await client.query('SELECT name FROM kept WHERE id = $1', [8]);
        await client.query("UPDATE kept SET name = 'x' WHERE id > 5");
        await client.query("DELETE FROM kept WHERE now() - interval '30 days' > now()");
        await client.query('SELECT id FROM dropped');
        await client.query('DROP TABLE dropped');
      } finally {
        await client.end();
      }
      const file = path.join(directory, 'statements.json');
      await recordStatements(server.url, server.url, file);
      const recorded = JSON.parse(await readFile(file, 'utf8')) as RecordedStatements;

      assert.ok(recorded.statements.includes('SELECT name FROM kept WHERE id = $1'));
      assert.ok(recorded.statements.includes('UPDATE kept SET name = $1 WHERE id > $2'));
      assert.ok(recorded.statements.includes('DELETE FROM kept WHERE now() - $1::interval > now()'));
      assert.equal(
        recorded.statements.filter((sql) => sql.includes('kept WHERE id = $1')).length,
        1,
        'each distinct statement once',
      );
      assert.ok(!recorded.statements.some((sql) => /CREATE|DROP/.test(sql)), 'no utility statement');
      assert.ok(!recorded.statements.includes('SELECT id FROM dropped'), 'a statement naming what is gone');
      assert.ok(recorded.seen > recorded.statements.length);
    });
  });
});
