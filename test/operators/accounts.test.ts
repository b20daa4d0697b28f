// Operator accounts over real HTTP on a real store: creating, listing and deleting users, signing in
// (Fides' answer shape), the four roles, refusals of bad input that change nothing, a viewer refused on
// every write route of the route table, approvals and denials naming the person, and login throttling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROLE_SCOPES } from '../../src/auth/scopes.ts';
import { scopedToken } from '../connections/support.ts';
import { fillPath, managementWriteRoutes } from '../helpers/route-table.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'correct horse battery';

describe('operator accounts', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ requireManualApproval: true, authFailuresPerMinute: 8 });
  });
  after(() => service.stop());

  async function createUser(username: string, roles: string[], token?: string) {
    const answer = await service.call('POST', '/v1/user', {
      token: token ?? (await service.rootToken()),
      json: { username, password: PASSWORD, roles },
    });
    assert.equal(answer.status, 201, answer.text);
    return answer.body;
  }

  async function login(username: string, password = PASSWORD) {
    return service.call('POST', '/v1/login', { json: { username, password } });
  }

  async function tokenOf(username: string): Promise<string> {
    const answer = await login(username);
    assert.equal(answer.status, 200, answer.text);
    return answer.body.token_data.access_token as string;
  }

  async function usernames(): Promise<string[]> {
    const list = await service.call('GET', '/v1/user', { token: await service.rootToken() });
    assert.equal(list.status, 200, list.text);
    return (list.body as { username: string }[]).map((user) => user.username);
  }

  it("creates an operator and signs them in with Fides' answer shape", async () => {
    const created = await createUser('dana.owner', ['owner']);
    assert.deepEqual(Object.keys(created).sort(), [
      'active',
      'created_at',
      'created_by',
      'email',
      'groups',
      'provider',
      'roles',
      'username',
    ]);
    assert.equal(created.email, null);
    assert.equal(created.created_by, 'root-test-client');
    const answer = await login('dana.owner');
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.user_data, { username: 'dana.owner', roles: ['owner'] });
    assert.equal(answer.body.token_data.token_type, 'Bearer');
    assert.equal(answer.body.token_data.expires_in, 3600);
    assert.match(answer.body.token_data.access_token, /^lat_/);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.ok(!answer.text.includes(PASSWORD));
    const listed = await service.call('GET', '/v1/user', { token: answer.body.token_data.access_token });
    assert.equal(listed.status, 200);
    assert.ok(!listed.text.includes('scrypt'), 'the list never shows a password hash');
  });

  it("accepts Fides' base64-encoded password at Fides' path, so Fides scripts sign in unchanged", async () => {
    const fides = await service.call('POST', '/api/v1/login', {
      json: { username: 'dana.owner', password: Buffer.from(PASSWORD).toString('base64') },
    });
    assert.equal(fides.status, 200, fides.text);
    assert.deepEqual(fides.body.user_data, { username: 'dana.owner', roles: ['owner'] });
    const wrong = await service.call('POST', '/api/v1/login', {
      json: { username: 'dana.owner', password: Buffer.from('not the password').toString('base64') },
    });
    assert.equal(wrong.status, 401);
  });

  it('stores the password as a salted scrypt hash, never in clear', async () => {
    const { rows } = await service.services.db.query<{ password_hash: string }>(
      "SELECT password_hash FROM operators WHERE username = 'dana.owner'",
    );
    assert.match(rows[0]?.password_hash ?? '', /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.ok(!rows[0]?.password_hash.includes(PASSWORD));
  });

  it('refuses a wrong password or an unknown name with the same 401, and counts nothing as signed in', async () => {
    const wrong = await login('dana.owner', 'not the password at all');
    const unknown = await login('nobody.here');
    assert.equal(wrong.status, 401);
    assert.equal(unknown.status, 401);
    assert.equal(wrong.body.detail, unknown.body.detail);
  });

  it('refuses bad accounts with a clear 4xx and creates nothing', async () => {
    const before = await usernames();
    const token = await service.rootToken();
    const cases: [unknown, number, RegExp][] = [
      [{ username: 'short.pw', password: 'elevenchars', roles: ['viewer'] }, 422, /at least 12 characters/],
      [{ username: 'bad role', password: PASSWORD, roles: ['viewer'] }, 422, /username/],
      [{ username: 'role.less', password: PASSWORD, roles: [] }, 422, /roles/],
      [{ username: 'odd.role', password: PASSWORD, roles: ['superuser'] }, 422, /roles/],
      [{ username: 'no.password', roles: ['viewer'] }, 422, /password/],
      [{ username: 'extra', password: PASSWORD, roles: ['viewer'], admin: true }, 422, /admin/],
      [{ username: 'dana.owner', password: PASSWORD, roles: ['viewer'] }, 409, /already exists/],
    ];
    for (const [json, status, detail] of cases) {
      const answer = await service.call('POST', '/v1/user', { token, json });
      assert.equal(answer.status, status, `${JSON.stringify(json)}: ${answer.text}`);
      assert.match(answer.body.detail, detail);
      assert.ok(!answer.text.includes(PASSWORD), 'an error never echoes the password');
    }
    assert.deepEqual(await usernames(), before);
  });

  it('refuses malformed logins and lookups with a clear 4xx', async () => {
    const malformed: [unknown, RegExp][] = [
      [{ username: 'dana.owner' }, /password/],
      [{ username: 'dana.owner', password: PASSWORD, remember: true }, /remember/],
      [{ username: 'dana.owner', password: 'x'.repeat(1025) }, /password/],
      [{ username: '', password: PASSWORD }, /username/],
      [['dana.owner', PASSWORD], /body/],
    ];
    for (const [json, detail] of malformed) {
      const answer = await service.call('POST', '/v1/login', { json });
      assert.equal(answer.status, 422, `${JSON.stringify(json).slice(0, 80)}: ${answer.text}`);
      assert.match(answer.body.detail, detail);
      assert.ok(!answer.text.includes(PASSWORD));
    }
    const token = await service.rootToken();
    const odd = await service.call(
      'DELETE',
      `/v1/user/${encodeURIComponent("'; DROP TABLE operators; --")}`,
      {
        token,
      },
    );
    assert.equal(odd.status, 404);
    const long = await service.call('GET', `/v1/audit-log?actor=${'a'.repeat(301)}`, { token });
    assert.equal(long.status, 422);
    assert.ok((await usernames()).includes('dana.owner'));
  });

  it('gives each role its documented scopes and nothing more', async () => {
    await createUser('vera.viewer', ['viewer']);
    await createUser('abe.approver', ['approver']);
    await createUser('cory.contributor', ['contributor']);
    const owner = await tokenOf('dana.owner');
    const viewer = await tokenOf('vera.viewer');
    const approver = await tokenOf('abe.approver');
    const contributor = await tokenOf('cory.contributor');
    const status = async (token: string, method: string, path: string, json?: unknown) =>
      (await service.call(method, path, { token, json })).status;

    assert.equal(await status(viewer, 'GET', '/v1/dsr/policy'), 200);
    assert.equal(await status(viewer, 'GET', '/v1/audit-log'), 200);
    assert.equal(await status(viewer, 'GET', '/v1/datastore'), 200);
    assert.equal(await status(viewer, 'GET', '/v1/user'), 403);
    assert.equal(await status(approver, 'GET', '/v1/privacy-request'), 200);
    assert.equal(await status(approver, 'PATCH', '/v1/dsr/policy', []), 403);
    assert.equal(await status(contributor, 'PATCH', '/v1/dsr/policy', []), 200);
    assert.equal(await status(contributor, 'GET', '/v1/oauth/client'), 403);
    assert.equal(await status(contributor, 'POST', '/v1/user', {}), 403);
    assert.equal(await status(owner, 'GET', '/v1/oauth/client'), 200);
    assert.ok(ROLE_SCOPES.viewer.every((scope) => scope.endsWith(':read')));
  });

  it('refuses a viewer with 403 on every write route of the route table', async () => {
    const viewer = await tokenOf('vera.viewer');
    const routes = managementWriteRoutes(service.app as NonNullable<TestService['app']>);
    assert.ok(routes.length >= 30, `the route table lists ${routes.length} write routes`);
    for (const route of routes) {
      const answer = await service.call(route.method, fillPath(route.url), { token: viewer, json: {} });
      assert.equal(answer.status, 403, `${route.method} ${route.url} (${route.scope}): ${answer.text}`);
      assert.match(answer.body.detail, /^Your account lacks the scope /);
    }
  });

  it('lets only holders of user:* manage users, and never beyond their own scopes', async () => {
    const owner = await tokenOf('dana.owner');
    await createUser('olga.owner', ['owner'], owner);
    const approver = await tokenOf('abe.approver');
    const refused = await service.call('POST', '/v1/user', {
      token: approver,
      json: { username: 'sneaky', password: PASSWORD, roles: ['owner'] },
    });
    assert.equal(refused.status, 403);
    const clientWithUsers = await scopedToken(service, ['user:*', 'user:read', 'policy:read']);
    const beyond = await service.call('POST', '/v1/user', {
      token: clientWithUsers,
      json: { username: 'escalated', password: PASSWORD, roles: ['owner'] },
    });
    assert.equal(beyond.status, 403);
    assert.match(beyond.body.detail, /scopes you do not hold/);
    assert.ok(!(await usernames()).includes('escalated'));
    assert.ok(!(await usernames()).includes('sneaky'));
  });

  it('sets, shows, changes and clears an operator email, refusing bad ones with a 422 that changes nothing', async () => {
    const root = await service.rootToken();
    const created = await service.call('POST', '/v1/user', {
      token: root,
      json: { username: 'erin', password: PASSWORD, roles: ['contributor'], email: ' Erin@Example.com ' },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.email, 'Erin@Example.com');
    const listed = async () => {
      const list = await service.call('GET', '/v1/user', { token: root });
      return (list.body as { username: string; email: string | null }[]).find(
        (user) => user.username === 'erin',
      )?.email;
    };
    assert.equal(await listed(), 'Erin@Example.com');

    const tooLong = `${'a'.repeat(64)}@${'b'.repeat(186)}.com`;
    assert.equal(tooLong.length, 255);
    const bad: unknown[] = ['not an address', 'erin@localhost', 'a@b@example.com', tooLong, 42];
    const usersBefore = await usernames();
    for (const email of bad) {
      const refusedCreate = await service.call('POST', '/v1/user', {
        token: root,
        json: { username: 'frank', password: PASSWORD, roles: ['viewer'], email },
      });
      assert.equal(refusedCreate.status, 422, `${String(email)}: ${refusedCreate.text}`);
      assert.match(refusedCreate.body.detail, /body\.email/);
      const refusedChange = await service.call('PATCH', '/v1/user/erin', { token: root, json: { email } });
      assert.equal(refusedChange.status, 422, `${String(email)}: ${refusedChange.text}`);
      assert.match(refusedChange.body.detail, /body\.email/);
    }
    assert.deepEqual(await usernames(), usersBefore, 'no operator was created');
    assert.equal(await listed(), 'Erin@Example.com', 'the email did not change');

    const changed = await service.call('PATCH', '/api/v1/user/erin', {
      token: root,
      json: { email: 'erin.new@example.com' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.email, 'erin.new@example.com');
    assert.equal(await listed(), 'erin.new@example.com');
    const audit = await service.call('GET', '/v1/audit-log?actor=client:root-test-client', { token: root });
    assert.ok(audit.body.items.some((entry: { action: string }) => entry.action === 'operator.update'));
    assert.ok(!audit.text.includes('erin.new@example.com'), 'the audit says the email changed, not to what');
    assert.ok(!audit.text.includes('Erin@Example.com'));

    const missing = await service.call('PATCH', '/v1/user/nobody', { token: root, json: { email: null } });
    assert.equal(missing.status, 404, missing.text);
    const narrow = await scopedToken(service, ['user:*', ...ROLE_SCOPES.viewer]);
    const refused = await service.call('PATCH', '/v1/user/erin', {
      token: narrow,
      json: { email: 'x@example.com' },
    });
    assert.equal(refused.status, 403, refused.text);
    assert.equal(await listed(), 'erin.new@example.com');

    const cleared = await service.call('PATCH', '/v1/user/erin', { token: root, json: { email: null } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(await listed(), null);
    assert.equal((await service.call('DELETE', '/v1/user/erin', { token: root })).status, 204);
  });

  it('deletes a user or a client only for a caller holding every scope the target holds', async () => {
    const root = await service.rootToken();
    await createUser('otto.owner', ['owner']);
    await createUser('val.viewer', ['viewer']);
    const broad = await service.call('POST', '/v1/oauth/client', {
      token: root,
      json: { name: 'broad', scopes: ['connection:delete', 'client:read'] },
    });
    assert.equal(broad.status, 201, broad.text);
    const accountsOnly = await scopedToken(service, ['user:*', 'user:read', 'client:*', 'client:read']);
    const clientsBefore = (await service.call('GET', '/v1/oauth/client', { token: root })).text;
    const usersBefore = await usernames();

    for (const path of ['/v1/user/otto.owner', '/api/v1/user/otto.owner']) {
      const refused = await service.call('DELETE', path, { token: accountsOnly });
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.detail, /delete an operator holding scopes you do not hold: connection:read/);
    }
    const refusedClient = await service.call('DELETE', `/v1/oauth/client/${broad.body.client_id}`, {
      token: accountsOnly,
    });
    assert.equal(refusedClient.status, 403, refusedClient.text);
    assert.match(
      refusedClient.body.detail,
      /delete a client holding scopes you do not hold: connection:delete/,
    );
    assert.deepEqual(await usernames(), usersBefore, 'nobody was deleted');
    assert.equal((await service.call('GET', '/v1/oauth/client', { token: root })).text, clientsBefore);
    assert.equal((await login('otto.owner')).status, 200, "the owner's sign-in still works");

    const narrowUser = await scopedToken(service, ['user:*', ...ROLE_SCOPES.viewer]);
    assert.equal((await service.call('DELETE', '/v1/user/val.viewer', { token: narrowUser })).status, 204);
    assert.equal((await service.call('DELETE', '/v1/user/otto.owner', { token: root })).status, 204);
  });

  it('names the person in approvals, denials, the request log and the audit log', async () => {
    const root = await service.rootToken();
    const submitted = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        { identity: { email: 'a@example.com' }, policy_key: 'default_access_policy' },
        { identity: { email: 'b@example.com' }, policy_key: 'default_access_policy' },
      ],
    });
    assert.equal(submitted.status, 200, submitted.text);
    const [first, second] = submitted.body.succeeded.map((request: { id: string }) => request.id);
    const approver = await tokenOf('abe.approver');
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: approver,
      json: { request_ids: [first] },
    });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.succeeded[0].reviewed_by, 'abe.approver');
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: approver,
      json: { request_ids: [second], reason: 'duplicate of another request' },
    });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.succeeded[0].reviewed_by, 'abe.approver');
    assert.equal(denied.body.succeeded[0].finalized_by, 'abe.approver');

    const log = await service.call('GET', `/v1/privacy-request/${first}/log`, { token: root });
    assert.ok(
      log.body.some((entry: { message: string | null }) => entry.message === 'approved by abe.approver'),
      log.text,
    );
    const audit = await service.call('GET', '/v1/audit-log?actor=user:abe.approver', { token: root });
    const actions = audit.body.items.map((entry: { action: string }) => entry.action);
    assert.deepEqual(actions.filter((action: string) => action !== 'operator.login').sort(), [
      'privacy-request.approve',
      'privacy-request.deny',
    ]);
    assert.ok(actions.includes('operator.login'), 'the sign-ins are audited too');
    assert.ok(!audit.text.includes('duplicate of another'), 'a denial reason stays out of the audit log');
  });

  it('revokes the tokens of a deleted operator at once', async () => {
    await createUser('temp.viewer', ['viewer']);
    const token = await tokenOf('temp.viewer');
    assert.equal((await service.call('GET', '/v1/dsr/policy', { token })).status, 200);
    const owner = await tokenOf('dana.owner');
    const removed = await service.call('DELETE', '/v1/user/temp.viewer', { token: owner });
    assert.equal(removed.status, 204);
    assert.equal((await service.call('GET', '/v1/dsr/policy', { token })).status, 401);
    assert.equal((await service.call('DELETE', '/v1/user/temp.viewer', { token: owner })).status, 404);
    assert.equal((await login('temp.viewer')).status, 401);
  });

  it('throttles failed logins per address, a correct password included, like client credentials', async () => {
    let answer = await login('dana.owner', 'wrong password number 0');
    for (let attempt = 1; attempt < 20 && answer.status === 401; attempt += 1) {
      answer = await login('dana.owner', `wrong password number ${attempt}`);
    }
    assert.equal(answer.status, 429, answer.text);
    assert.ok(Number(answer.headers.get('retry-after')) > 0);
    const right = await login('dana.owner');
    assert.equal(right.status, 429, 'a blocked address learns nothing, not even a right guess');
  });
});
