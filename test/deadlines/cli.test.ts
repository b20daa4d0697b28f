// `lethe request extend`, `lethe request deny --reason` and `lethe report requests` as real child processes
// against a store the real API serves (stopped around each command on the one-process embedded store).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningService } from '../../src/runtime/start.ts';
import { endOfLocalDay, localDayOf, plusDays } from '../helpers/statute-days.ts';
import { type CliStore, createCliStore, SLOW } from '../cli/support.ts';

const PASSWORD = 'a long cli password';

describe('the clock from the command line', () => {
  let store: CliStore;
  let api: (RunningService & { url: string }) | undefined;
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

  it('extends once, requires a reason to deny, and writes the records as CSV', SLOW, async () => {
    const created = await cli(['user', 'create', 'clock.owner', '--role', 'owner'], `${PASSWORD}\n`);
    assert.equal(created.code, 0, created.stderr);
    const login = await http('POST', '/v1/login', { json: { username: 'clock.owner', password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
    const made = await http('POST', '/v1/privacy-request', {
      token: login.body.token_data.access_token,
      json: [
        {
          identity: { email: 'cli.clock@example.com' },
          policy_key: 'default_access_policy',
          location: 'US-CA',
        },
        { identity: { email: 'cli.deny@example.com' }, policy_key: 'default_access_policy', location: 'FR' },
      ],
    });
    assert.equal(made.status, 200, made.text);
    const [extendable, deniable] = made.body.succeeded as { id: string; due_date: string }[];
    assert.ok(extendable && deniable);

    const extended = await cli(['request', 'extend', extendable.id, '--reason', 'three archives', '--json']);
    assert.equal(extended.code, 0, extended.stderr);
    const view = JSON.parse(extended.stdout);
    const zone = 'America/Los_Angeles';
    const extendedTo = endOfLocalDay(plusDays(localDayOf(new Date(extendable.due_date), zone), 45), zone);
    assert.equal(view.due_date, extendedTo.toISOString());
    assert.equal(view.extension_reason, 'three archives');
    assert.equal('identity' in view, false, 'no identity on the terminal');
    const again = await cli(['request', 'extend', extendable.id, '--reason', 'more']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already extended/);

    const withoutReason = await cli(['request', 'deny', deniable.id]);
    assert.equal(withoutReason.code, 2);
    assert.match(withoutReason.stderr, /needs --reason/);
    const denied = await cli(['request', 'deny', deniable.id, '--reason', 'not a customer']);
    assert.equal(denied.code, 0, denied.stderr);

    const report = await cli(['report', 'requests']);
    assert.equal(report.code, 0, report.stderr);
    const lines = report.stdout.trimEnd().split('\r\n');
    assert.match(lines[0] ?? '', /^id,received_at,action_type,jurisdiction,status/);
    assert.equal(lines.length, 3);
    assert.ok(lines.some((line) => line.startsWith(`${deniable.id},`) && line.includes(',EU,denied,')));
    assert.equal(report.stdout.includes('@example.com'), false);
    const badDate = await cli(['report', 'requests', '--from', 'soon']);
    assert.equal(badDate.code, 2);
  });
});
