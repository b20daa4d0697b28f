// Every `lethe` command as a real child process on a real store: help, usage errors (exit 2, nothing
// changed), datastore create/list, api-key create/list/revoke (the key works on the real API until it is
// revoked), client create, migrate, and serve/worker starting and stopping on a signal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CliStore, createCliStore, waitForOutput } from './support.ts';

describe('lethe commands', () => {
  let store: CliStore;

  before(async () => {
    store = await createCliStore();
  });
  after(() => store.remove());

  it('migrates a fresh store, then finds nothing to apply', async () => {
    const first = await store.run(['migrate']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied: 001_foundation, .*006_entity_imports/);
    const again = await store.run(['migrate']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'nothing to apply\n');
  });

  it('answers --help for every command with its usage and exit 0', async () => {
    const expected: [string[], RegExp][] = [
      [['--help'], /Usage: lethe <command>[\s\S]*import --datastore D FILE\.ndjson/],
      [['help'], /Usage: lethe <command>/],
      [['api-key', '--help'], /lethe api-key create[\s\S]*lethe api-key list[\s\S]*lethe api-key revoke ID/],
      [['api-key', 'revoke', '-h'], /lethe api-key revoke ID/],
      [['datastore', '--help'], /lethe datastore create NAME[\s\S]*lethe datastore list/],
      [['import', '--help'], /Usage: lethe import --datastore NAME FILE\.ndjson/],
      [['client', '--help'], /Usage: lethe client create/],
    ];
    for (const [args, usage] of expected) {
      const run = await store.run(args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stdout, usage, args.join(' '));
    }
  });

  it('refuses bad arguments with the usage text and exit 2, changing nothing', async () => {
    const created = await store.run(['datastore', 'create', 'baseline']);
    assert.equal(created.code, 0, created.stderr);
    const listsBefore = [
      (await store.run(['datastore', 'list'])).stdout,
      (await store.run(['api-key', 'list'])).stdout,
    ];
    const refused: [string[], RegExp][] = [
      [['frobnicate'], /unknown command frobnicate[\s\S]*Usage: lethe <command>/],
      [['datastore'], /give an action[\s\S]*lethe datastore create NAME/],
      [['datastore', 'create'], /give the name of the datastore/],
      [['datastore', 'create', 'Bad Name'], /"Bad Name" is not a datastore name/],
      [['datastore', 'create', 'a', 'b'], /unexpected argument "b"/],
      [['datastore', 'create', 'x', '--description', 'd'.repeat(1001)], /--description is longer than 1000/],
      [['datastore', 'create', 'x', '--colour', 'red'], /Unknown option '--colour'/],
      [['datastore', 'drop', 'baseline'], /unknown action "drop"/],
      [['datastore', 'list', '--description', 'x'], /--description is an option of datastore create/],
      [['api-key'], /give an action[\s\S]*lethe api-key create/],
      [['api-key', 'create', '--datastore', 'baseline'], /--name is required/],
      [['api-key', 'create', '--name', 'x'], /give at least one --datastore/],
      [['api-key', 'create', '--name', 'x', '--datastore', 'Bad'], /give at least one --datastore/],
      [['api-key', 'create', '--name', 'x', '--datastore', 'baseline', '--rate-limit', '0'], /--rate-limit/],
      [['api-key', 'list', '--name', 'x'], /--name is not an option of api-key list/],
      [['api-key', 'revoke'], /give exactly one key id/],
      [['api-key', 'revoke', 'a', 'b'], /give exactly one key id/],
      [['import', 'file.ndjson'], /--datastore is required/],
      [['import', '--datastore', 'baseline'], /give exactly one FILE\.ndjson/],
      [['import', '--datastore', 'baseline', 'a.ndjson', 'b.ndjson'], /give exactly one FILE\.ndjson/],
      [['import', '--datastore', 'baseline', 'a.ndjson', '--batch-size', '0'], /--batch-size must be/],
      [['import', '--datastore', 'baseline', 'a.ndjson', '--batch-size', '1001'], /--batch-size must be/],
      [['import', '--datastore', 'baseline', 'a.ndjson', '--batch-size', 'ten'], /--batch-size must be/],
      [['import', '--datastore', 'Bad', 'a.ndjson'], /"Bad" is not a datastore name/],
      [['client', 'create'], /give at least one --scope/],
      [['client', 'delete'], /Usage: lethe <command>/],
    ];
    // None of these opens the store, so they may run side by side.
    for (let start = 0; start < refused.length; start += 4) {
      await Promise.all(
        refused.slice(start, start + 4).map(async ([args, message]) => {
          const run = await store.run(args);
          assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
          assert.match(run.stderr, message, args.join(' '));
          assert.equal(run.stdout, '', args.join(' '));
        }),
      );
    }
    const listsAfter = [
      (await store.run(['datastore', 'list'])).stdout,
      (await store.run(['api-key', 'list'])).stdout,
    ];
    assert.deepEqual(listsAfter, listsBefore);
  });

  it('creates and lists datastores; a taken name is refused with exit 1', async () => {
    const created = await store.run(['datastore', 'create', 'shop', '--description', 'web shop customers']);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(
      { ...JSON.parse(created.stdout), created_at: undefined },
      { name: 'shop', description: 'web shop customers', created_at: undefined },
    );
    const taken = await store.run(['datastore', 'create', 'shop']);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /A datastore named shop already exists/);
    const listed = await store.run(['datastore', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    const shop = JSON.parse(listed.stdout).find((entry: { name: string }) => entry.name === 'shop');
    assert.equal(shop.description, 'web shop customers');
  });

  it('issues, lists and revokes API keys; the key works on the API until revoked', async () => {
    await store.run(['datastore', 'create', 'keys-store']);
    const issued = await store.run([
      'api-key',
      'create',
      '--name',
      'ops',
      '--datastore',
      'keys-store',
      '--rate-limit',
      '90',
    ]);
    assert.equal(issued.code, 0, issued.stderr);
    const key = JSON.parse(issued.stdout);
    assert.match(key.key, /^lk_[0-9a-f]{16}_/);

    const listed = await store.run(['api-key', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    const entry = JSON.parse(listed.stdout).find((candidate: { id: string }) => candidate.id === key.id);
    assert.deepEqual(
      { ...entry, created_at: undefined },
      {
        id: key.id,
        name: 'ops',
        datastores: ['keys-store'],
        rate_limit_per_minute: 90,
        created_at: undefined,
      },
    );
    assert.ok(!listed.stdout.includes(key.key.split('_').slice(2).join('_')), 'list never shows the secret');

    const call = async (url: string) =>
      fetch(`${url}/api/entity/get-by-id`, {
        method: 'POST',
        headers: { 'api-key': key.key, datastore: 'keys-store', 'content-type': 'application/json' },
        body: JSON.stringify(['00000000-0000-4000-8000-000000000000']),
      });
    let api = await store.startApi();
    try {
      const answer = await call(api.url);
      assert.equal(answer.status, 200, await answer.text());
      assert.equal(answer.headers.get('ratelimit-limit'), '90');
    } finally {
      await api.stop();
    }

    const revoked = await store.run(['api-key', 'revoke', key.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout, `revoked API key ${key.id}\n`);
    const again = await store.run(['api-key', 'revoke', key.id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`No API key with id ${key.id}`));

    api = await store.startApi();
    try {
      assert.equal((await call(api.url)).status, 401);
    } finally {
      await api.stop();
    }
    const actions = await store.withDatabase(
      async (db) =>
        (
          await db.query<{ action: string; actor: string }>(
            `SELECT action, actor FROM audit_log WHERE details->>'api_key_id' = $1 ORDER BY seq`,
            [key.id],
          )
        ).rows,
    );
    assert.deepEqual(actions, [
      { action: 'api-key.issue', actor: 'client:cli' },
      { action: 'api-key.revoke', actor: 'client:cli' },
    ]);
  });

  it('creates a management client whose secret gets a token', async () => {
    const created = await store.run(['client', 'create', '--name', 'dpo', '--scope', 'datastore:*']);
    assert.equal(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout);
    const api = await store.startApi();
    try {
      const answer = await fetch(`${api.url}/v1/oauth/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.client_id,
          client_secret: client.client_secret,
        }),
      });
      assert.equal(answer.status, 200);
      assert.equal((await answer.json()).scope, 'datastore:*');
    } finally {
      await api.stop();
    }
  });

  for (const command of ['serve', 'worker'] as const) {
    it(`${command} starts, serves and stops on SIGTERM`, async () => {
      const child = store.start([command]);
      const match = await waitForOutput(
        child,
        command === 'serve' ? /Lethe listening on (\S+)/ : /Lethe worker running/,
      );
      if (command === 'serve') {
        const health = await fetch(`${match[1]}/health`);
        assert.equal(health.status, 200);
      }
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      assert.equal(await closed, 0);
    });
  }
});
