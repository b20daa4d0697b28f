// Custom roles over real HTTP on a real store: defined as named sets of scopes, listed beside the built-in
// four, given to operators, changed with effect on live sessions, and refused when built in, unknown,
// broader than their maker, or still held.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

const PASSWORD = 'correct horse battery';

describe('custom roles', () => {
  let service: TestService;
  let root: string;
  before(async () => {
    service = await startTestService();
    root = await service.rootToken();
  });
  after(() => service.stop());

  const putRole = (name: string, json: unknown, token = root) =>
    service.call('PUT', `/v1/role/${name}`, { token, json });

  async function signIn(username: string, roles: string[]): Promise<string> {
    const created = await service.call('POST', '/v1/user', {
      token: root,
      json: { username, password: PASSWORD, roles },
    });
    assert.equal(created.status, 201, created.text);
    const login = await service.call('POST', '/v1/login', { json: { username, password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
    return login.body.token_data.access_token as string;
  }

  it('defines a role as a set of scopes, lists it after the built-in four, and audits it', async () => {
    const created = await putRole('dpo', {
      scopes: ['privacy-request:review', 'privacy-request:read'],
      description: 'Reviews requests.',
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.scopes, ['privacy-request:read', 'privacy-request:review']);
    assert.equal(created.body.built_in, false);
    assert.equal(created.body.updated_by, 'root-test-client');
    const list = await service.call('GET', '/v1/role', { token: root });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.map((role: { name: string }) => role.name),
      ['owner', 'approver', 'contributor', 'viewer', 'dpo'],
    );
    const audit = await service.call('GET', '/v1/audit-log?action=role.create', { token: root });
    assert.equal(audit.status, 200, audit.text);
    assert.ok(JSON.stringify(audit.body).includes('"dpo"'), audit.text);
  });

  it('gives an operator the scopes of a custom role, and a change reaches their live session at once', async () => {
    const token = await signIn('riley.dpo', ['dpo']);
    assert.equal((await service.call('GET', '/v1/privacy-request', { token })).status, 200);
    assert.equal((await service.call('GET', '/v1/connection', { token })).status, 403);

    const changed = await putRole('dpo', { scopes: ['privacy-request:read', 'connection:read'] });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await service.call('GET', '/v1/connection', { token })).status, 200);
    const users = await service.call('GET', '/v1/user', { token: root });
    const riley = users.body.find((user: { username: string }) => user.username === 'riley.dpo');
    assert.deepEqual(riley.roles, ['dpo']);
  });

  it('assigns roles to an existing operator through PATCH, built-in and custom together', async () => {
    const token = await signIn('sam.viewer', ['viewer']);
    const patched = await service.call('PATCH', '/v1/user/sam.viewer', {
      token: root,
      json: { roles: ['dpo', 'viewer'] },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.roles, ['viewer', 'dpo']);
    assert.equal((await service.call('GET', '/v1/privacy-request', { token })).status, 200);
  });

  it('refuses built-in names, unknown roles and scopes, and a role held by someone: nothing changes', async () => {
    const builtIn = await putRole('owner', { scopes: ['policy:read'] });
    assert.equal(builtIn.status, 409, builtIn.text);
    assert.match(builtIn.body.detail, /owner is a built-in role/);
    const badScope = await putRole('odd', { scopes: ['policy:fly'] });
    assert.equal(badScope.status, 422, badScope.text);
    const badName = await putRole('Odd%20Name', { scopes: ['policy:read'] });
    assert.equal(badName.status, 422, badName.text);
    const unknownRole = await service.call('POST', '/v1/user', {
      token: root,
      json: { username: 'nobody.here', password: PASSWORD, roles: ['ghost'] },
    });
    assert.equal(unknownRole.status, 422, unknownRole.text);
    assert.match(unknownRole.body.detail, /unknown roles: ghost/);
    const held = await service.call('DELETE', '/v1/role/dpo', { token: root });
    assert.equal(held.status, 409, held.text);
    assert.match(held.body.detail, /held by 2 operators/);
    const names = (await service.call('GET', '/v1/role', { token: root })).body.map(
      (role: { name: string }) => role.name,
    );
    assert.deepEqual(names, ['owner', 'approver', 'contributor', 'viewer', 'dpo']);
    const users = (await service.call('GET', '/v1/user', { token: root })).body.map(
      (user: { username: string }) => user.username,
    );
    assert.equal(users.includes('nobody.here'), false);
  });

  it('lets nobody make a role broader than themselves, and a viewer none at all', async () => {
    assert.equal((await putRole('admins', { scopes: ['user:*', 'user:read'] })).status, 201);
    const admin = await signIn('alex.accounts', ['admins']);
    const broader = await putRole('wider', { scopes: ['connection:read'] }, admin);
    assert.equal(broader.status, 403, broader.text);
    assert.match(broader.body.detail, /scopes you do not hold: connection:read/);
    const viewer = await signIn('vic.viewer', ['viewer']);
    assert.equal((await putRole('mine', { scopes: ['policy:read'] }, viewer)).status, 403);
    const names = (await service.call('GET', '/v1/role', { token: root })).body.map(
      (role: { name: string }) => role.name,
    );
    assert.equal(names.includes('wider') || names.includes('mine'), false);
  });

  it('deletes a custom role once nobody holds it', async () => {
    assert.equal((await putRole('temporary', { scopes: ['policy:read'] })).status, 201);
    const removed = await service.call('DELETE', '/v1/role/temporary', { token: root });
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await service.call('DELETE', '/v1/role/temporary', { token: root })).status, 404);
  });
});
