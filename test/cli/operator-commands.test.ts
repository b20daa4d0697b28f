// `lethe user|request|policy|connection` as real child processes against a store the real API serves:
// on PostgreSQL the API keeps running while every command runs; on the embedded PGlite store (one
// process at a time) it is stopped around each command. A user made by the CLI signs in over HTTP;
// requests made over HTTP are listed, shown, approved and denied by the CLI, which the API then sees.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { formatTable } from '../../src/cli/output.ts';
import { parseListCommand, POLICY_USAGE } from '../../src/cli/listing-command.ts';
import { parseRequestCommand } from '../../src/cli/request-command.ts';
import { parseUserCommand } from '../../src/cli/user-command.ts';
import type { RunningService } from '../../src/runtime/start.ts';
import { type CliStore, createCliStore, SLOW } from './support.ts';

const PASSWORD = 'a long cli password';

describe('lethe operator commands', () => {
  let store: CliStore;
  let api: (RunningService & { url: string }) | undefined;
  /** Whether the store takes several processes at once (PostgreSQL) or one (PGlite). */
  let shared: boolean;

  before(async () => {
    store = await createCliStore({ LETHE_REQUIRE_MANUAL_APPROVAL: 'true' });
    shared = store.env.DATABASE_URL !== undefined;
    const migrated = await store.run(['migrate']);
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(async () => {
    await api?.stop();
    await store.remove();
  });

  async function cli(args: string[], input?: string) {
    if (!shared && api) {
      await api.stop();
      api = undefined;
    }
    return store.run(args, input);
  }

  async function http(method: string, path: string, options: { token?: string; json?: unknown } = {}) {
    api ??= await store.startApi();
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: {
        ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  }

  async function login(username: string) {
    const answer = await http('POST', '/v1/login', { json: { username, password: PASSWORD } });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.token_data.access_token as string;
  }

  it('creates operators with a password read from stdin; they sign in over HTTP', SLOW, async () => {
    await http('GET', '/health');
    const created = await cli(['user', 'create', 'Ana.Owner', '--role', 'owner'], `${PASSWORD}\n`);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout, 'created operator ana.owner (owner)\n');
    const approver = await cli(
      ['user', 'create', 'ben.approver', '--role', 'approver', '--email', 'ben@example.com', '--json'],
      PASSWORD,
    );
    assert.equal(approver.code, 0, approver.stderr);
    assert.deepEqual(JSON.parse(approver.stdout).roles, ['approver']);
    assert.equal(JSON.parse(approver.stdout).email, 'ben@example.com');
    const badEmail = await cli(
      ['user', 'create', 'dee', '--role', 'viewer', '--email', 'dee at home'],
      PASSWORD,
    );
    assert.equal(badEmail.code, 1);
    assert.match(badEmail.stderr, /email must be an email address/);
    const short = await cli(['user', 'create', 'cat.viewer', '--role', 'viewer'], 'too short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);

    const token = await login('ana.owner');
    const audit = await http('GET', '/v1/audit-log?action=operator&actor=client:cli', { token });
    assert.deepEqual(
      audit.body.items.map((entry: { action: string }) => entry.action),
      ['operator.create', 'operator.create'],
    );
    assert.ok(!audit.text.includes(PASSWORD));

    const listed = await cli(['user', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^USERNAME\s+ROLES\s+CREATED_BY\s+CREATED_AT\nana\.owner\s+owner\s+cli\s/);
    assert.ok(!listed.stdout.includes('cat.viewer'));
    const json = JSON.parse((await cli(['user', 'list', '--json'])).stdout);
    assert.deepEqual(
      json.map((user: { username: string }) => user.username),
      ['ana.owner', 'ben.approver'],
    );
  });

  it('lists, shows, approves, denies and cancels privacy requests the API received', SLOW, async () => {
    const token = await login('ana.owner');
    const submitted = await http('POST', '/v1/privacy-request', {
      token,
      json: [
        { identity: { email: 'one@example.com' }, policy_key: 'default_access_policy' },
        { identity: { email: 'two@example.com' }, policy_key: 'default_erasure_policy' },
      ],
    });
    assert.equal(submitted.status, 200, submitted.text);
    const [first, second] = submitted.body.succeeded.map((request: { id: string }) => request.id);

    const pending = await cli(['request', 'list', '--status', 'pending']);
    assert.equal(pending.code, 0, pending.stderr);
    assert.match(pending.stdout, /^ID\s+STATUS\s+POLICY\s+REQUESTED_AT\s+DAYS_LEFT\s+REVIEWED_BY\n/);
    assert.ok(pending.stdout.includes(first) && pending.stdout.includes(second));
    assert.ok(!pending.stdout.includes('one@example.com'), 'tables never show identities');
    const listed = JSON.parse((await cli(['request', 'list', '--json'])).stdout);
    assert.equal(listed.total, 2);
    assert.ok(
      listed.items.every(
        (request: object) => !('identity' in request) && !('unverified_identity' in request),
      ),
    );

    const approved = await cli(['request', 'approve', first]);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, new RegExp(`${first}\\s+approved`));
    const denied = await cli(['request', 'deny', second, 'pri_unknown', '--reason', 'duplicate', '--json']);
    assert.equal(denied.code, 1, 'one of the two could not be denied');
    const answer = JSON.parse(denied.stdout);
    assert.equal(answer.succeeded[0].status, 'denied');
    assert.match(answer.failed[0].message, /No privacy request with id pri_unknown/);

    const shown = await cli(['request', 'show', second]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /status\s+denied/);
    assert.match(shown.stdout, /reviewed_by\s+cli/);
    assert.match(shown.stdout, /pending -> denied\s+denied by cli: duplicate/);

    const third = await http('POST', '/v1/privacy-request', {
      token,
      json: [{ identity: { email: 'three@example.com' }, policy_key: 'default_access_policy' }],
    });
    const thirdId = third.body.succeeded[0].id as string;
    const canceled = await cli([
      'request',
      'cancel',
      thirdId,
      '--reason-code',
      'subject_withdrew',
      '--reason',
      'asked twice',
    ]);
    assert.equal(canceled.code, 0, canceled.stderr);
    assert.equal(canceled.stdout, `canceled ${thirdId} (canceled)\n`);
    const again = await cli(['request', 'cancel', thirdId, '--reason-code', 'duplicate']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /cannot cancel a request in status canceled/);

    const seen = await http('GET', `/v1/privacy-request/${first}`, { token });
    assert.equal(seen.body.reviewed_by, 'cli');
    const audit = await http('GET', '/v1/audit-log?action=privacy-request&actor=client:cli', { token });
    assert.deepEqual(audit.body.items.map((entry: { action: string }) => entry.action).sort(), [
      'privacy-request.approve',
      'privacy-request.cancel',
      'privacy-request.deny',
    ]);
    const shownCancel = await cli(['request', 'show', thirdId]);
    assert.match(shownCancel.stdout, /-> canceled\s+canceled by cli \(subject_withdrew\): asked twice/);
  });

  it('lists policies and connections, secrets masked, and deletes a user', SLOW, async () => {
    const token = await login('ana.owner');
    await http('PATCH', '/v1/connection', {
      token,
      json: [{ key: 'crm', name: 'CRM', connection_type: 'https', access: 'write' }],
    });
    const policies = await cli(['policy', 'list']);
    assert.equal(policies.code, 0, policies.stderr);
    assert.match(policies.stdout, /^KEY\s+NAME\s+ACTION\s+RULES\s+TIMEFRAME_DAYS\n/);
    assert.match(policies.stdout, /default_erasure_policy\s/);
    const connections = JSON.parse((await cli(['connection', 'list', '--json'])).stdout);
    assert.deepEqual(
      connections.items.map((connection: { key: string }) => connection.key),
      ['crm'],
    );
    const table = await cli(['connection', 'list']);
    assert.match(
      table.stdout,
      /^KEY\s+NAME\s+TYPE\s+URL\s+OAUTH\s+WEBHOOKS_USING\ncrm\s+CRM\s+https\s+-\s+no\s+0\n$/,
    );

    const removed = await cli(['user', 'delete', 'ben.approver']);
    assert.equal(removed.code, 0, removed.stderr);
    const missing = await cli(['user', 'delete', 'ben.approver']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No operator named ben\.approver/);
    const signIn = await http('POST', '/v1/login', {
      json: { username: 'ben.approver', password: PASSWORD },
    });
    assert.equal(signIn.status, 401);
  });

  it('refuses bad arguments with the usage text', () => {
    const refused: [(argv: string[]) => unknown, string[], RegExp][] = [
      [parseUserCommand, [], /give an action/],
      [parseUserCommand, ['create', 'x'], /give at least one --role/],
      [parseUserCommand, ['create', '--role', 'owner'], /give exactly one username/],
      [parseUserCommand, ['list', 'x'], /user list takes only --json/],
      [parseUserCommand, ['list', '--email', 'a@example.com'], /user list takes only --json/],
      [parseUserCommand, ['delete'], /give exactly one username/],
      [
        parseUserCommand,
        ['create', 'x', '--role', 'owner', '--password', 'p'],
        /Unknown option '--password'/,
      ],
      [parseRequestCommand, ['list', '--status', 'done'], /--status must be one of identity_unverified/],
      [parseRequestCommand, ['list', '--size', '0'], /--size must be a whole number/],
      [parseRequestCommand, ['show'], /give exactly one request id/],
      [parseRequestCommand, ['approve'], /give the id of at least one request to approve/],
      [
        parseRequestCommand,
        ['approve', 'x', '--reason', 'r'],
        /--reason is not an option of request approve/,
      ],
      [parseRequestCommand, ['cancel'], /give exactly one request id/],
      [parseRequestCommand, ['cancel', 'a', 'b'], /give exactly one request id/],
      [parseRequestCommand, ['close', 'x'], /unknown action "close"/],
      [(argv) => parseListCommand(argv, POLICY_USAGE), ['show'], /unknown action "show"/],
      [(argv) => parseListCommand(argv, POLICY_USAGE), ['list', 'x'], /unexpected argument "x"/],
    ];
    for (const [parse, argv, message] of refused) {
      assert.throws(
        () => parse(argv),
        (error: Error) => error instanceof ConfigError && message.test(error.message),
        argv.join(' '),
      );
    }
  });

  it('keeps every table cell on one line', () => {
    assert.equal(formatTable(['a', 'b'], [['x\ny', null]]), 'A    B\nx y  -\n');
  });
});
