// Every `lethe` command as a real child process on a real store: help, usage errors (exit 2, nothing
// changed; the full list of bad arguments is checked on the parsers in-process, since each process
// costs seconds on a loaded machine), datastore create/list, api-key create/list/revoke (the key works on the real API until it is
// revoked), client create, migrate, and serve/worker starting and stopping on a signal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { parseApiKeyCommand } from '../../src/cli/api-key-command.ts';
import { parseDatastoreCommand } from '../../src/cli/datastore-command.ts';
import { parseImportCommand } from '../../src/cli/import-command.ts';
import { type CliStore, createCliStore, SLOW, waitForOutput } from './support.ts';

describe('lethe commands', () => {
  let store: CliStore;

  before(async () => {
    store = await createCliStore();
  });
  after(() => store.remove());

  it('migrates a fresh store, then finds nothing to apply', SLOW, async () => {
    const first = await store.run(['migrate']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied: 001_foundation, .*006_entity_imports/);
    const again = await store.run(['migrate']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'nothing to apply\n');
  });

  it('answers --help for every command with its usage and exit 0', SLOW, async () => {
    const expected: [string[], RegExp][] = [
      [['--help'], /Usage: lethe <command>[\s\S]*import --datastore D FILE\.ndjson/],
      [
        ['api-key', 'revoke', '-h'],
        /lethe api-key create[\s\S]*lethe api-key list[\s\S]*lethe api-key revoke ID/,
      ],
      [
        ['datastore', '--help'],
        /lethe datastore create NAME[\s\S]*lethe datastore list[\s\S]*lethe datastore identities NAME \[--set JSON\]/,
      ],
      [['import', '--help'], /Usage: lethe import --datastore NAME FILE\.ndjson/],
      [['client', '--help'], /Usage: lethe client create/],
    ];
    // None of these opens the store, so they run side by side.
    await Promise.all(
      expected.map(async ([args, usage]) => {
        const run = await store.run(args);
        assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
        assert.match(run.stdout, usage, args.join(' '));
      }),
    );
  });

  it(
    'refuses bad arguments of each command with its usage text and exit 2, changing nothing',
    SLOW,
    async () => {
      const created = await store.run(['datastore', 'create', 'baseline']);
      assert.equal(created.code, 0, created.stderr);
      const listsBefore = [
        (await store.run(['datastore', 'list'])).stdout,
        (await store.run(['api-key', 'list'])).stdout,
      ];
      const refused: [string[], RegExp][] = [
        [['frobnicate'], /unknown command frobnicate[\s\S]*Usage: lethe <command>/],
        [
          ['datastore', 'create', 'Bad Name'],
          /"Bad Name" is not a datastore name[\s\S]*lethe datastore list/,
        ],
        [
          ['api-key', 'create', '--datastore', 'baseline'],
          /--name is required[\s\S]*lethe api-key revoke ID/,
        ],
        [
          ['import', '--datastore', 'baseline', 'a.ndjson', '--batch-size', '0'],
          /--batch-size must be[\s\S]*Usage: lethe import/,
        ],
        [['client', 'create'], /give at least one --scope/],
      ];
      await Promise.all(
        refused.map(async ([args, message]) => {
          const run = await store.run(args);
          assert.equal(run.code, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
          assert.match(run.stderr, message, args.join(' '));
          assert.equal(run.stdout, '', args.join(' '));
        }),
      );
      const listsAfter = [
        (await store.run(['datastore', 'list'])).stdout,
        (await store.run(['api-key', 'list'])).stdout,
      ];
      assert.deepEqual(listsAfter, listsBefore);
    },
  );

  it(
    "shows and declares a datastore's identity attributes, audited, refusing a bad declaration",
    SLOW,
    async () => {
      assert.equal((await store.run(['datastore', 'create', 'kinds'])).code, 0);
      const shown = await store.run(['datastore', 'identities', 'kinds']);
      assert.equal(shown.code, 0, shown.stderr);
      assert.equal(JSON.parse(shown.stdout).declared, false);
      assert.deepEqual(JSON.parse(shown.stdout).identities.email, ['*.email']);

      const declaration = { email: ['user.email'], loyalty: ['customer.loyalty_id'] };
      const set = await store.run(['datastore', 'identities', 'kinds', '--set', JSON.stringify(declaration)]);
      assert.equal(set.code, 0, set.stderr);
      const again = JSON.parse((await store.run(['datastore', 'identities', 'kinds'])).stdout);
      assert.equal(again.declared, true);
      assert.deepEqual(again.identities, declaration);
      const audited = await store.withDatabase((db) =>
        db.query<{ actor: string }>("SELECT actor FROM audit_log WHERE action = 'datastore.identities'"),
      );
      assert.deepEqual(
        audited.rows.map((row) => row.actor),
        ['client:cli'],
      );

      const bad = await store.run([
        'datastore',
        'identities',
        'kinds',
        '--set',
        '{"email": ["user.email", "nodot"]}',
      ]);
      assert.equal(bad.code, 1, bad.stdout);
      assert.match(bad.stderr, /email\[1\] must be a name of the form <table>\.<attribute>/);
      const missing = await store.run(['datastore', 'identities', 'nowhere']);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /No datastore named nowhere/);
      assert.deepEqual(
        JSON.parse((await store.run(['datastore', 'identities', 'kinds'])).stdout).identities,
        declaration,
      );
    },
  );

  it('names the problem of every other bad argument list (the parsers the processes above run)', () => {
    const refused: [(argv: string[]) => unknown, string[], RegExp][] = [
      [parseDatastoreCommand, [], /give an action/],
      [parseDatastoreCommand, ['create'], /give the name of the datastore/],
      [parseDatastoreCommand, ['create', 'a', 'b'], /unexpected argument "b"/],
      [
        parseDatastoreCommand,
        ['create', 'x', '--description', 'd'.repeat(1001)],
        /--description is longer than 1000/,
      ],
      [parseDatastoreCommand, ['create', 'x', '--colour', 'red'], /Unknown option '--colour'/],
      [parseDatastoreCommand, ['drop', 'baseline'], /unknown action "drop"/],
      [parseDatastoreCommand, ['create', 'x', '--json'], /--json is an option of datastore list/],
      [
        parseDatastoreCommand,
        ['list', '--description', 'x'],
        /--description is an option of datastore create/,
      ],
      [parseDatastoreCommand, ['identities'], /give the name of the datastore/],
      [parseDatastoreCommand, ['identities', 'a', 'b'], /unexpected argument "b"/],
      [parseDatastoreCommand, ['identities', 'a', '--set', '{email'], /--set must be a JSON object/],
      [parseDatastoreCommand, ['list', '--set', '{}'], /--set is an option of datastore identities/],
      [parseApiKeyCommand, [], /give an action/],
      [parseApiKeyCommand, ['create', '--name', 'x'], /give at least one --datastore/],
      [parseApiKeyCommand, ['create', '--name', 'x', '--datastore', 'Bad'], /give at least one --datastore/],
      [
        parseApiKeyCommand,
        ['create', '--name', 'x', '--datastore', 'b', '--rate-limit', '0'],
        /--rate-limit/,
      ],
      [parseApiKeyCommand, ['list', '--name', 'x'], /--name is not an option of api-key list/],
      [parseApiKeyCommand, ['revoke', 'a', '--json'], /--json is not an option of api-key revoke/],
      [
        parseApiKeyCommand,
        ['create', '--name', 'x', '--datastore', 'd', '--json'],
        /--json is an option of api-key list/,
      ],
      [parseApiKeyCommand, ['revoke'], /give exactly one key id/],
      [parseApiKeyCommand, ['revoke', 'a', 'b'], /give exactly one key id/],
      [parseImportCommand, ['file.ndjson'], /--datastore is required/],
      [parseImportCommand, ['--datastore', 'b'], /give exactly one FILE\.ndjson/],
      [parseImportCommand, ['--datastore', 'b', 'a.ndjson', 'b.ndjson'], /give exactly one FILE\.ndjson/],
      [parseImportCommand, ['--datastore', 'b', 'a.ndjson', '--batch-size', '1001'], /--batch-size must be/],
      [parseImportCommand, ['--datastore', 'b', 'a.ndjson', '--batch-size', 'ten'], /--batch-size must be/],
      [parseImportCommand, ['--datastore', 'Bad', 'a.ndjson'], /"Bad" is not a datastore name/],
    ];
    for (const [parse, argv, message] of refused) {
      assert.throws(
        () => parse(argv),
        (error: Error) => error instanceof ConfigError && message.test(error.message),
        argv.join(' '),
      );
    }
    assert.deepEqual(parseImportCommand(['--datastore', 'shop', 'f.ndjson']), {
      datastore: 'shop',
      file: 'f.ndjson',
      batchSize: 500,
      restart: false,
    });
  });

  it('creates and lists datastores; a taken name is refused with exit 1', SLOW, async () => {
    const created = await store.run(['datastore', 'create', 'shop', '--description', 'web shop customers']);
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(
      { ...JSON.parse(created.stdout), created_at: undefined },
      { name: 'shop', description: 'web shop customers', created_at: undefined },
    );
    const taken = await store.run(['datastore', 'create', 'shop']);
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /A datastore named shop already exists/);
    const listed = await store.run(['datastore', 'list', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const shop = JSON.parse(listed.stdout).find((entry: { name: string }) => entry.name === 'shop');
    assert.equal(shop.description, 'web shop customers');
    const table = await store.run(['datastore', 'list']);
    assert.equal(table.code, 0, table.stderr);
    const lines = table.stdout.trimEnd().split('\n');
    assert.match(lines[0] as string, /^NAME +DESCRIPTION +CREATED_AT$/);
    const row = lines.find((line) => line.startsWith('shop '));
    assert.match(row ?? '', /^shop +web shop customers +\d{4}-\d\d-\d\dT/);
    assert.equal(row?.indexOf('web shop'), lines[0]?.indexOf('DESCRIPTION'), 'columns aligned');
  });

  it('issues, lists and revokes API keys; the key works on the API until revoked', SLOW, async () => {
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

    const table = await store.run(['api-key', 'list']);
    assert.equal(table.code, 0, table.stderr);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    assert.match(header as string, /^ID +NAME +DATASTORES +RATE_LIMIT_PER_MINUTE +CREATED_AT$/);
    const row = rows.find((line) => line.startsWith(`${key.id} `));
    assert.match(row ?? '', /^\S+ +ops +keys-store +90 +\d{4}-/);
    assert.equal(row?.indexOf('ops'), header?.indexOf('NAME'), 'columns aligned');
    assert.ok(
      !table.stdout.includes(key.key.split('_').slice(2).join('_')),
      'the table never shows the secret',
    );

    const listed = await store.run(['api-key', 'list', '--json']);
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

  it('creates a management client whose secret gets a token', SLOW, async () => {
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
    it(`${command} starts, serves and stops on SIGTERM`, SLOW, async () => {
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
