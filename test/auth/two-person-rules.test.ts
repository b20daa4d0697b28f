// Four eyes are two people: a client acts for the operator who made it, so an owner who denied a request
// cannot decide its appeal through a client made a second later; another operator can, and so can a
// client that other operator made. Real HTTP, real store, the denial's appeal link read on a real SMTP server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

const PASSWORD = 'correct horse battery staple';

describe('two-person rules compare people', () => {
  let mail: MailServer;
  let service: TestService;
  let root: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  async function operatorToken(username: string, roles: string[]): Promise<string> {
    const user = await service.call('POST', '/v1/user', {
      token: root,
      json: { username, password: PASSWORD, roles },
    });
    assert.equal(user.status, 201, user.text);
    const login = await service.call('POST', '/v1/login', { json: { username, password: PASSWORD } });
    assert.equal(login.status, 200, login.text);
    return login.body.token_data.access_token as string;
  }

  async function clientTokenMadeBy(token: string): Promise<{ id: string; token: string }> {
    const made = await service.call('POST', '/v1/oauth/client', {
      token,
      json: { name: 'automation', scopes: ['privacy-request:read', 'privacy-request:review'] },
    });
    assert.equal(made.status, 201, made.text);
    const granted = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: made.body.client_id,
        client_secret: made.body.client_secret,
      }),
    });
    assert.equal(granted.status, 200, granted.text);
    return { id: made.body.client_id as string, token: granted.body.access_token as string };
  }

  async function deniedWithAppeal(email: string, deniedBy: string): Promise<string> {
    const created = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email }, location: 'US-CO' }],
    });
    assert.equal(created.status, 200, created.text);
    const id = created.body.succeeded[0].id as string;
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: deniedBy,
      json: { request_ids: [id], reason: 'Identity not matched.' },
    });
    assert.equal(denied.status, 200, denied.text);
    const message = await mail.waitFor(
      (candidate) => candidate.to.includes(email) && candidate.text.includes('your request was declined'),
    );
    const token = /\/privacy-center\/appeal\/([A-Za-z0-9_-]{43})/.exec(message.text)?.[1];
    assert.ok(token, 'the denial carries an appeal link');
    const appealed = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token, statement: 'Please look again.' },
    });
    assert.equal(appealed.status, 200, appealed.text);
    return id;
  }

  const decide = (id: string, token: string) =>
    service.call('POST', `/v1/privacy-request/${id}/appeal/decide`, {
      token,
      json: { outcome: 'upheld', reason: 'Still not matched.' },
    });

  it('refuses the owner who denied, deciding the appeal through a client made a second later', async () => {
    const owner = await operatorToken('olive.owner', ['owner']);
    const id = await deniedWithAppeal('four.eyes@example.com', owner);
    const client = await clientTokenMadeBy(owner);
    const listed = await service.call('GET', '/v1/oauth/client', { token: root });
    const shown = listed.body.find((entry: { client_id: string }) => entry.client_id === client.id);
    assert.equal(shown.acts_for, 'user:olive.owner');

    const throughClient = await decide(id, client.token);
    assert.equal(throughClient.status, 403, throughClient.text);
    assert.match(throughClient.body.detail, /through a client they made/);
    const signedIn = await decide(id, owner);
    assert.equal(signedIn.status, 403, signedIn.text);
    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token: root });
    assert.equal(request.body.appeal.status, 'pending', 'nothing was decided');

    const other = await operatorToken('oscar.approver', ['approver']);
    const decided = await decide(id, other);
    assert.equal(decided.status, 200, decided.text);
    assert.equal(decided.body.appeal.decided_by, 'oscar.approver');
  });

  it('refuses the operator whose client denied, and lets a client of another operator decide', async () => {
    const owner = await operatorToken('opal.owner', ['owner']);
    const ownersClient = await clientTokenMadeBy(owner);
    const id = await deniedWithAppeal('four.eyes.two@example.com', ownersClient.token);
    assert.equal((await decide(id, owner)).status, 403, 'the person behind the denying client');

    const other = await operatorToken('otto.owner', ['owner']);
    const othersClient = await clientTokenMadeBy(other);
    const decided = await decide(id, othersClient.token);
    assert.equal(decided.status, 200, decided.text);
  });
});
