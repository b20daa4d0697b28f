// All or nothing under SIGKILL, on PostgreSQL (npm run test:chaos). `lethe serve` runs as a child process
// on a fresh database; the test kills it with SIGKILL while it erases a large entity tree
// (/api/user/forget) and while it replaces a webhook list (PUT), restarts it, and reads the outcome
// through the API and in SQL. Proves: the tree, its attributes and the audit entry are either all still
// there or all gone; the webhook list is exactly the old one or exactly the new one, orders 0..n-1.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { managementToken, timedCall } from '../reliability/support/http.ts';
import { type LetheProcess, startLethe } from '../reliability/support/processes.ts';

const ADMIN_URL = process.env.LETHE_TEST_DATABASE_URL;
const TREE_CHILDREN = 15;
const TREE_GRANDCHILDREN = 40;
const TREE_SIZE = 1 + TREE_CHILDREN + TREE_CHILDREN * TREE_GRANDCHILDREN;
const FORGET_ROUNDS = 2;
const MAX_FORGET_ROUNDS = 6;
const PUT_ROUNDS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('atomicity under SIGKILL', () => {
  let databaseUrl: string;
  let databaseName: string;
  let dataDir: string;
  let env: Record<string, string>;
  let lethe: LetheProcess;
  let probe: pg.Client;
  let token: string;
  let apiKey: string;

  const restart = async () => {
    if (lethe?.alive()) await lethe.kill('SIGKILL');
    lethe = await startLethe('serve', env);
    token = await managementToken(
      lethe.url,
      env.LETHE_ROOT_CLIENT_ID as string,
      env.LETHE_ROOT_CLIENT_SECRET as string,
    );
  };

  /** Whether a Lethe connection to the test database holds an open transaction right now. */
  const transactionOpen = async (table: string) => {
    const { rows } = await probe.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = $1 AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
          AND state IN ('active', 'idle in transaction') AND query ILIKE '%' || $2 || '%'`,
      [databaseName, table],
    );
    return (rows[0]?.n ?? 0) > 0;
  };

  before(async () => {
    assert.ok(ADMIN_URL, 'the chaos run needs PostgreSQL: set LETHE_TEST_DATABASE_URL');
    databaseName = `lethe_chaos_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    await admin.end();
    const url = new URL(ADMIN_URL);
    url.pathname = `/${databaseName}`;
    databaseUrl = url.toString();
    probe = new pg.Client({ connectionString: databaseUrl });
    await probe.connect();
    dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-atomicity-'));
    env = {
      DATABASE_URL: databaseUrl,
      LETHE_DATA_DIR: dataDir,
      LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LETHE_ROOT_CLIENT_ID: 'atomicity-root',
      LETHE_ROOT_CLIENT_SECRET: randomBytes(24).toString('hex'),
    };
    await restart();
    assert.equal(
      (await timedCall(lethe.url, 'POST', '/v1/datastore', { token, json: { name: 'big' } })).status,
      201,
    );
    const key = await timedCall(lethe.url, 'POST', '/v1/api-key', {
      token,
      json: { name: 'atomicity', datastores: ['big'], rate_limit_per_minute: 1_000_000 },
    });
    apiKey = key.body.key;
  });

  after(async () => {
    if (lethe?.alive()) await lethe.kill('SIGTERM');
    await probe?.end();
    if (ADMIN_URL && databaseName) {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await admin.end();
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const subjectCall = (urlPath: string, json: unknown) =>
    timedCall(lethe.url, 'POST', urlPath, {
      headers: { 'api-key': apiKey, datastore: 'big' },
      json,
      boundMs: 60_000,
    });

  async function createTree(): Promise<string> {
    const rootId = randomUUID();
    const children = Array.from({ length: TREE_CHILDREN }, () => randomUUID());
    const first = await subjectCall('/api/entity/create', [
      { id: rootId, name: 'users', attributes: [{ name: 'email', value: `${rootId}@example.com` }] },
      ...children.map((id, index) => ({
        id,
        name: 'orders',
        references: [{ parentId: rootId, parentName: 'users' }],
        attributes: [
          { name: 'address', value: `${index} Chaos Road` },
          { name: 'total', value: String(index * 10) },
        ],
      })),
    ]);
    assert.equal(first.status, 203, first.text);
    for (const parent of children) {
      const lines = await subjectCall(
        '/api/entity/create',
        Array.from({ length: TREE_GRANDCHILDREN }, (_, index) => ({
          name: 'lines',
          references: [{ parentId: parent, parentName: 'orders' }],
          attributes: [
            { name: 'sku', value: `sku-${index}` },
            { name: 'note', value: `line ${index} of ${parent}` },
          ],
        })),
      );
      assert.equal(lines.status, 203, lines.text);
    }
    return rootId;
  }

  const storeCounts = async () => {
    const { rows } = await probe.query<{ entities: number; attributes: number; forgets: number }>(
      `SELECT (SELECT count(*) FROM entities WHERE datastore = 'big')::int AS entities,
              (SELECT count(*) FROM entity_attributes WHERE datastore = 'big')::int AS attributes,
              (SELECT count(*) FROM audit_log WHERE action = 'user.forget')::int AS forgets`,
    );
    return rows[0] as { entities: number; attributes: number; forgets: number };
  };

  it('forget of a large tree: SIGKILL mid-transaction leaves the whole tree or none of it', async () => {
    const outcomes: string[] = [];
    let killedMidTransaction = 0;
    // A forget can commit before the watcher sees it on a fast machine: rounds go on (at most
    // MAX_FORGET_ROUNDS) until one kill is proven to have landed mid-transaction.
    for (
      let round = 0;
      round < FORGET_ROUNDS || (killedMidTransaction === 0 && round < MAX_FORGET_ROUNDS);
      round++
    ) {
      const rootId = await createTree();
      const before = await storeCounts();
      assert.equal(before.entities, TREE_SIZE);
      const forget = subjectCall('/api/user/forget', { entityId: rootId });
      const deadline = Date.now() + 5_000;
      while (!(await transactionOpen('entit')) && Date.now() < deadline);
      const seen = await transactionOpen('entit');
      // Even rounds kill as soon as the transaction is seen; odd ones at a random moment after.
      if (round % 2 === 1) await sleep(Math.floor(Math.random() * 400));
      await lethe.kill('SIGKILL');
      const answer = await forget;
      await restart();

      const after = await storeCounts();
      const read = await subjectCall('/api/entity/get-by-id', [rootId]);
      assert.equal(read.status, 200, read.text);
      if (after.entities === 0) {
        assert.deepEqual(
          after,
          { entities: 0, attributes: 0, forgets: before.forgets + 1 },
          'all gone, audited',
        );
        assert.equal(read.body[0].error?.code, 'not_found');
        outcomes.push('erased');
      } else {
        assert.deepEqual(after, before, 'all still there, not audited');
        assert.equal(read.body[0].error, null);
        assert.ok(answer.status !== 200, 'a forget that answered 200 is never undone');
        outcomes.push('kept');
        if (seen) killedMidTransaction += 1;
        const cleanup = await subjectCall('/api/user/forget', { entityId: rootId });
        assert.equal(cleanup.status, 200, cleanup.text);
      }
    }
    assert.ok(
      killedMidTransaction >= 1,
      'at least one kill landed after the forget transaction began and before it committed',
    );
    process.stdout.write(
      `# forget atomicity ${JSON.stringify({ tree_entities: TREE_SIZE, outcomes, killed_mid_transaction: killedMidTransaction })}\n`,
    );
  });

  it('webhook list PUT: SIGKILL leaves exactly the old list or exactly the new one', async () => {
    await restart();
    const connections = await timedCall(lethe.url, 'PATCH', '/v1/connection', {
      token,
      json: ['hook_x', 'hook_y'].map((key) => ({ key, name: key, connection_type: 'https', access: 'read' })),
    });
    assert.equal(connections.status, 200, connections.text);
    const list = (prefix: string, size: number) =>
      Array.from({ length: size }, (_, index) => ({
        connection_config_key: index % 2 ? 'hook_x' : 'hook_y',
        direction: index % 3 ? 'one_way' : 'two_way',
        key: `${prefix}_${index}`,
        name: `${prefix} ${index}`,
      }));
    const put = (items: unknown[]) =>
      timedCall(lethe.url, 'PUT', '/v1/policy/default_erasure_policy/webhook/pre_execution', {
        token,
        json: items,
      });
    const shape = (items: { key: string }[]) => items.map((item, index) => `${index}:${item.key}`).join(',');

    let current = list('old', 50);
    assert.equal((await put(current)).status, 200);
    const outcomes: string[] = [];
    let killedMidTransaction = 0;
    for (let round = 0; round < PUT_ROUNDS; round++) {
      const next = list(`r${round}`, 20 + Math.floor(Math.random() * 31)).reverse();
      const answer = put(next);
      // Even rounds kill the moment the transaction is seen open; odd rounds 0-150 ms after the PUT is sent.
      const killOnSight = round % 2 === 0;
      const killAfter = killOnSight ? 1000 : Math.floor(Math.random() * 150);
      const started = Date.now();
      let inside = false;
      while (Date.now() - started < killAfter && !(killOnSight && inside)) {
        inside = (await transactionOpen('webhook')) || inside;
      }
      await lethe.kill('SIGKILL');
      const acknowledged = (await answer).status === 200;
      await restart();

      const listed = await timedCall(
        lethe.url,
        'GET',
        '/v1/policy/default_erasure_policy/webhook/pre_execution',
        {
          token,
        },
      );
      assert.equal(listed.status, 200, listed.text);
      const got = shape(listed.body.map((item: { key: string; order: number }) => ({ key: item.key })));
      assert.deepEqual(
        listed.body.map((item: { order: number }) => item.order),
        listed.body.map((_: unknown, index: number) => index),
        'orders 0..n-1',
      );
      const { rows } = await probe.query<{ key: string }>(
        `SELECT w.key FROM policy_webhooks w JOIN policies p ON p.id = w.policy_id
          WHERE p.key = 'default_erasure_policy' AND w.timing = 'pre' ORDER BY w.position`,
      );
      assert.equal(shape(rows), got, 'the API shows exactly the rows in the store');
      if (got === shape(next)) {
        outcomes.push('new');
        current = next;
      } else {
        assert.equal(got, shape(current), 'the old list, untouched');
        assert.ok(!acknowledged, 'an acknowledged PUT is never undone');
        outcomes.push('old');
        if (inside) killedMidTransaction += 1;
      }
    }
    process.stdout.write(
      `# webhook PUT atomicity ${JSON.stringify({ outcomes, killed_mid_transaction: killedMidTransaction })}\n`,
    );
  });
});
