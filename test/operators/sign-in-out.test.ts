// Signing in and out under pressure, over the real app on a real store (issue 22): a burst of wrong
// logins cannot starve a correct one from another address (counted before hashing, one hash per attempt,
// at most two hashes at once, a bounded queue past which 429), POST /v1/logout ends the presented token in
// this API process and in another one, and sign-ins, token grants and sign-outs are audited without a
// password or a token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashTurns as passwordHashing, MAX_CONCURRENT_HASHES } from '../../src/crypto/hash-turns.ts';
import { startService } from '../../src/runtime/start.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'correct horse battery';
/** base64 of printable text, as Fides scripts send a password: the old login hashed it twice. */
const WRONG = Buffer.from('a wrong password!').toString('base64');

describe('signing in and out', () => {
  let service: TestService;
  before(async () => {
    // The real default of LETHE_AUTH_FAILURES_PER_MINUTE.
    service = await startTestService({ authFailuresPerMinute: 10 });
    const created = await service.call('POST', '/v1/user', {
      token: await service.rootToken(),
      json: { username: 'nora.owner', password: PASSWORD, roles: ['owner'] },
    });
    assert.equal(created.status, 201, created.text);
  });
  after(() => service.stop());

  function login(remoteAddress: string, password: string, username = 'nora.owner') {
    const app = service.app as NonNullable<TestService['app']>;
    return app.inject({
      method: 'POST',
      url: '/v1/login',
      remoteAddress,
      payload: { username, password },
    });
  }

  it('answers a correct login from another address after at most a turn of wrong ones, during 40 concurrent wrong ones', async () => {
    let busiest = 0;
    const probe = setInterval(() => {
      busiest = Math.max(busiest, passwordHashing().running);
    }, 1);
    const wrong = Array.from({ length: 40 }, () => login('203.0.113.50', WRONG));
    // The correct login comes once wrong hashes are queued, so that it has something to wait behind.
    for (let turn = 0; turn < 10_000 && passwordHashing().waiting < 5; turn++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    assert.ok(passwordHashing().waiting >= 5, 'wrong hashes are queued');
    // Counted from the moment the correct login is sent: hashes finished before it (while the test waited
    // for the queue to fill, longer on a loaded machine) are not hashes it waited behind.
    const hashedBefore = passwordHashing().completed;
    const right = await login('198.51.100.7', PASSWORD);
    // Hashes done when the correct login answered, its own included: the work it waited behind, which a
    // loaded machine slows down but does not change. A queue served first come first served makes it wait
    // for all ten wrong hashes (measured: 10); served round-robin by address, for those running and the
    // next in turn (measured: 3).
    const hashedUntilRight = passwordHashing().completed - hashedBefore;
    const answers = await Promise.all(wrong);
    clearInterval(probe);
    assert.equal(right.statusCode, 200, right.body);
    assert.ok(
      hashedUntilRight <= MAX_CONCURRENT_HASHES + 3,
      `the correct login waited for ${hashedUntilRight - 1} other hashes`,
    );
    assert.ok(busiest <= MAX_CONCURRENT_HASHES, `${busiest} hashes ran at once`);
    const statuses = answers.map((answer) => answer.statusCode);
    assert.equal(statuses.filter((status) => status === 401).length, 10, statuses.join(' '));
    assert.equal(statuses.filter((status) => status === 429).length, 30, statuses.join(' '));
  });

  it('hashes once per attempt, a Fides base64 password included', async () => {
    const before = passwordHashing().completed;
    assert.equal((await login('198.51.100.8', WRONG)).statusCode, 401);
    assert.equal(passwordHashing().completed - before, 1);
    const fides = await login('198.51.100.8', Buffer.from(PASSWORD).toString('base64'));
    assert.equal(fides.statusCode, 200, fides.body);
    assert.equal(passwordHashing().completed - before, 2);
  });

  it('queues at most a bounded number of hashes; past it answers 429 saying to retry', async () => {
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, index) => login(`192.0.2.${index + 1}`, WRONG)),
    );
    const busy = answers.filter((answer) => answer.statusCode === 429);
    assert.ok(
      answers.every((answer) => [401, 429].includes(answer.statusCode)),
      answers.map((answer) => answer.statusCode).join(' '),
    );
    assert.ok(busy.length > 0, 'some attempts were refused rather than queued');
    for (const answer of busy) {
      assert.match(answer.json().detail, /Too many sign-ins are being checked right now; retry/);
      assert.ok(answer.headers['retry-after']);
    }
    assert.equal(passwordHashing().running, 0);
    assert.equal(passwordHashing().waiting, 0);
  });

  it('ends the presented token at /v1/logout, /api/v1/logout and /logout, in every API process', async () => {
    const other = await startService(service.config, { api: true, worker: false, logger: false });
    try {
      for (const path of ['/v1/logout', '/api/v1/logout', '/logout']) {
        const signedIn = await login('198.51.100.9', PASSWORD);
        assert.equal(signedIn.statusCode, 200, signedIn.body);
        const token = signedIn.json().token_data.access_token as string;
        const elsewhere = (status: number) =>
          fetch(`${other.url}/v1/user`, { headers: { authorization: `Bearer ${token}` } }).then((answer) =>
            assert.equal(answer.status, status, `${path}: the other process`),
          );
        assert.equal((await service.call('GET', '/v1/user', { token })).status, 200);
        await elsewhere(200);
        const out = await service.call('POST', path, { token });
        assert.equal(out.status, 204, out.text);
        assert.equal((await service.call('GET', '/v1/user', { token })).status, 401, path);
        await elsewhere(401);
        const again = await service.call('POST', path, { token });
        assert.equal(again.status, 401, 'a token ends once');
      }
    } finally {
      await other.stop();
    }
    const none = await service.call('POST', '/v1/logout');
    assert.equal(none.status, 401);
    assert.match(none.body.detail, /Bearer/);
    const junk = await service.call('POST', '/v1/logout', { token: 'lat_not-a-token' });
    assert.equal(junk.status, 401);
  });

  it("ends a client's token too, and audits sign-ins, grants and sign-outs without a secret", async () => {
    const root = service.config.rootClient as { id: string; secret: string };
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: root.id,
        client_secret: root.secret,
      }),
    });
    const token = issued.body.access_token as string;
    assert.equal((await service.call('POST', '/v1/logout', { token })).status, 204);
    assert.equal((await service.call('GET', '/v1/user', { token })).status, 401);

    const { rows } = await service.services.db.query<{
      action: string;
      actor: string;
      client_address: string | null;
      details: Record<string, unknown>;
    }>(
      `SELECT action, actor, client_address, details FROM audit_log
        WHERE action IN ('operator.login', 'operator.logout', 'client.token', 'client.logout') ORDER BY seq`,
    );
    const actions = new Set(rows.map((row) => `${row.action} ${row.actor}`));
    for (const expected of [
      'operator.login user:nora.owner',
      'operator.logout user:nora.owner',
      `client.token client:${root.id}`,
      `client.logout client:${root.id}`,
    ]) {
      assert.ok(actions.has(expected), `${expected} in ${[...actions].join(', ')}`);
    }
    assert.ok(rows.some((row) => row.action === 'operator.login' && row.client_address === '198.51.100.9'));
    const text = JSON.stringify(rows);
    for (const secret of [PASSWORD, Buffer.from(PASSWORD).toString('base64'), root.secret, token, 'lat_']) {
      assert.ok(!text.includes(secret), 'the audit log holds no password, secret or token');
    }
  });
});
