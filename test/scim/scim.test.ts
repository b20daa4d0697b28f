// SCIM 2.0 at /scim/v2 with the RFC's example bodies (RFC 7643 section 8, RFC 7644 section 3), on a real
// store with a real OpenID provider for the operator's own sign-in: provisioning, filters, groups mapping
// to roles, PatchOp in Okta's and Entra ID's forms, errors in SCIM's shape, and deactivation ending the
// operator's session and disabling the clients they made within 5 seconds, audited.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type OpenIdProvider, startOpenIdProvider } from '../helpers/openid-provider.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { TestBrowser } from '../sso/browser.ts';

const CLIENT_SECRET = 'a-client-secret-of-some-length-0123456789';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** RFC 7644 section 3.3's example of creating a User. */
const BJENSEN = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'bjensen',
  externalId: 'bjensen',
  name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- SCIM answers are inspected field by field
type Answer = Record<string, any>;

describe('SCIM 2.0', () => {
  let provider: OpenIdProvider;
  let service: TestService;
  let root: string;
  let scimToken: string;
  before(async () => {
    provider = await startOpenIdProvider();
    service = await startTestService({
      oidc: {
        issuer: provider.issuer,
        clientId: 'lethe',
        clientSecret: CLIENT_SECRET,
        redirectUrl: undefined,
        rolesClaim: 'groups',
        roleMap: { 'Tour Guides': ['owner'] },
        name: 'Test IdP',
        scopes: 'openid email profile groups',
        clockSkewSeconds: 0,
      },
    });
    provider.register({
      clientId: 'lethe',
      clientSecret: CLIENT_SECRET,
      redirectUri: `${service.url}/v1/oidc/callback`,
    });
    root = await service.rootToken();
    const client = await service.call('POST', '/v1/oauth/client', {
      token: root,
      json: { name: 'identity provider', scopes: ['scim'] },
    });
    assert.equal(client.status, 201, client.text);
    scimToken = await clientToken(client.body.client_id, client.body.client_secret);
  });
  after(async () => {
    await service.stop();
    await provider.close();
  });

  async function clientToken(id: string, secret: string): Promise<string> {
    const granted = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }),
    });
    assert.equal(granted.status, 200, granted.text);
    return granted.body.access_token as string;
  }

  async function scim(method: string, path: string, body?: unknown, token = scimToken) {
    const answer = await fetch(`${service.url}/scim/v2${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await answer.text();
    return {
      status: answer.status,
      headers: answer.headers,
      text,
      body: (text ? JSON.parse(text) : {}) as Answer,
    };
  }

  const operator = async (username: string) =>
    ((await service.call('GET', '/v1/user', { token: root })).body as Answer[]).find(
      (entry) => entry.username === username,
    );

  function assertScimError(
    answer: { status: number; body: Answer; headers: Headers },
    status: number,
    scimType?: string,
  ) {
    assert.equal(answer.status, status, JSON.stringify(answer.body));
    assert.match(answer.headers.get('content-type') ?? '', /^application\/scim\+json/);
    assert.deepEqual(answer.body.schemas, [ERROR]);
    assert.equal(answer.body.status, String(status));
    if (scimType) assert.equal(answer.body.scimType, scimType);
    assert.equal(typeof answer.body.detail, 'string');
  }

  let userId = '';

  it('describes itself: ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const config = (await scim('GET', '/ServiceProviderConfig')).body;
    assert.equal(config.patch.supported, true);
    assert.equal(config.filter.supported, true);
    assert.equal(config.authenticationSchemes[0].type, 'oauthbearertoken');
    const types = (await scim('GET', '/ResourceTypes')).body;
    assert.deepEqual(
      types.Resources.map((type: Answer) => type.id),
      ['User', 'Group'],
    );
    const schemas = (await scim('GET', '/Schemas')).body;
    assert.deepEqual(
      schemas.Resources.map((schema: Answer) => schema.id),
      ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:core:2.0:Group'],
    );
  });

  it('answers without a token 401 and without the scim scope 403, in SCIM’s error shape', async () => {
    assertScimError(await scim('GET', '/Users', undefined, ''), 401);
    assertScimError(await scim('GET', '/Users', undefined, 'lat_forged'), 401);
    const reader = await service.call('POST', '/v1/oauth/client', {
      token: root,
      json: { scopes: ['user:read'] },
    });
    const readerToken = await clientToken(reader.body.client_id, reader.body.client_secret);
    assertScimError(await scim('GET', '/Users', undefined, readerToken), 403);
  });

  it('creates the RFC’s User, finds it by filter, and refuses a duplicate, a bad body and an unsupported filter', async () => {
    const created = await scim('POST', '/Users', BJENSEN);
    assert.equal(created.status, 201, created.text);
    assert.match(created.headers.get('content-type') ?? '', /^application\/scim\+json/);
    const user = created.body;
    userId = user.id;
    assert.match(userId, /^[0-9a-f-]{36}$/);
    assert.equal(user.userName, 'bjensen');
    assert.equal(user.externalId, 'bjensen');
    assert.equal(user.displayName, 'Ms. Barbara J Jensen III');
    assert.equal(user.active, true);
    assert.equal(created.headers.get('location'), user.meta.location);
    assert.equal((await scim('GET', `/Users/${userId}`)).body.userName, 'bjensen');

    const found = (await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "bjensen"')}`)).body;
    assert.equal(found.totalResults, 1);
    assert.equal(found.Resources[0].id, userId);
    const none = (await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody"')}`)).body;
    assert.equal(none.totalResults, 0);
    assert.deepEqual(none.Resources, []);

    assertScimError(await scim('POST', '/Users', BJENSEN), 409, 'uniqueness');
    assertScimError(await scim('POST', '/Users', { userName: 'no.schemas' }), 400, 'invalidSyntax');
    assertScimError(await scim('POST', '/Users', { ...BJENSEN, userName: 'Bad Name!' }), 400, 'invalidValue');
    assertScimError(
      await scim('GET', `/Users?filter=${encodeURIComponent('userName sw "b"')}`),
      400,
      'invalidFilter',
    );
    assertScimError(await scim('GET', '/Users/2819c223-7f76-453a-919d-413861904646'), 404);
    assert.equal(await operator('no.schemas'), undefined, 'nothing was made');
    const bjensen = await operator('bjensen');
    assert.equal(bjensen?.provider, 'scim');
    assert.deepEqual(bjensen?.roles, []);
  });

  it('maps a Group’s members to roles', async () => {
    // RFC 7643 section 8.4's Group, its member the User above.
    const group = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: 'Tour Guides',
      members: [{ value: userId, display: 'Babs Jensen' }],
    });
    assert.equal(group.status, 201, group.text);
    const groupId = group.body.id as string;
    assert.deepEqual((await operator('bjensen'))?.roles, ['owner']);
    assert.deepEqual((await operator('bjensen'))?.groups, ['Tour Guides']);
    const byName = (await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Tour Guides"')}`))
      .body;
    assert.equal(byName.totalResults, 1);
    assert.equal(byName.Resources[0].members[0].value, userId);

    // RFC 7644 section 3.5.2.2: remove one member by filter; then add it back (section 3.5.2.1).
    const removed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }],
    });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual((await operator('bjensen'))?.roles, []);
    const added = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ display: 'Babs Jensen', value: userId }] }],
    });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual((await operator('bjensen'))?.roles, ['owner']);
    assertScimError(
      await scim('PATCH', `/Groups/${groupId}`, {
        schemas: [PATCH],
        Operations: [
          { op: 'add', path: 'members', value: [{ value: '00000000-0000-4000-8000-000000000000' }] },
        ],
      }),
      400,
      'invalidValue',
    );
  });

  async function signInThroughProvider(): Promise<{ status: number; text: string; code?: string }> {
    provider.signInAs({ sub: 'idp-bjensen', preferred_username: 'bjensen', groups: [] });
    const browser = new TestBrowser();
    const callback = await browser.followUntil(`${service.url}/v1/oidc/login`, (url) =>
      url.toString().startsWith(`${service.url}/v1/oidc/callback`),
    );
    const landed = await browser.request(callback.toString());
    const code = /#oidc=([\w-]+)$/.exec(landed.headers.get('location') ?? '')?.[1];
    return { status: landed.status, text: await landed.text(), code };
  }

  it('deactivation ends the session and disables the clients the operator made within 5 seconds, audited', async () => {
    const landed = await signInThroughProvider();
    assert.ok(landed.code, landed.text);
    const session = await service.call('POST', '/v1/oidc/session', { json: { code: landed.code } });
    assert.equal(session.status, 200, session.text);
    const token = session.body.token_data.access_token as string;
    assert.deepEqual(session.body.user_data.roles, ['owner'], 'the SCIM group gives the role');
    const made = await service.call('POST', '/v1/oauth/client', {
      token,
      json: { name: 'nightly export', scopes: ['privacy-request:read'] },
    });
    assert.equal(made.status, 201, made.text);
    const madeToken = await clientToken(made.body.client_id, made.body.client_secret);
    assert.equal((await service.call('GET', '/v1/privacy-request', { token: madeToken })).status, 200);

    // Okta's form: replace without a path.
    const deactivated = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    assert.equal(deactivated.status, 200, deactivated.text);
    assert.equal(deactivated.body.active, false);

    const deadline = Date.now() + 5000;
    let statuses: number[] = [];
    while (Date.now() < deadline) {
      statuses = [
        (await service.call('GET', '/v1/privacy-request', { token })).status,
        (await service.call('GET', '/v1/privacy-request', { token: madeToken })).status,
      ];
      if (statuses.every((status) => status === 401)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(statuses, [401, 401], 'the session and the client token end within 5 seconds');
    const again = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: made.body.client_id,
        client_secret: made.body.client_secret,
      }),
    });
    assert.equal(again.status, 401, 'the disabled client gets no new token');
    const clients = await service.call('GET', '/v1/oauth/client', { token: root });
    const shown = clients.body.find((client: Answer) => client.client_id === made.body.client_id);
    assert.ok(shown.disabled_at, 'the client shows as disabled');
    const audit = await service.call('GET', '/v1/audit-log?action=operator.deactivate', { token: root });
    const entry = audit.body.items[0];
    assert.equal(entry.details.username, 'bjensen');
    assert.deepEqual(entry.details.clients_disabled, [made.body.client_id]);

    const refused = await signInThroughProvider();
    assert.equal(refused.status, 403);
    assert.match(refused.text, /deactivated/);

    // Entra ID's form: a path, and the boolean as a string.
    const reactivated = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    assert.equal(reactivated.status, 200, reactivated.text);
    assert.equal((await operator('bjensen'))?.active, true);
    assertScimError(
      await scim('PATCH', `/Users/${userId}`, {
        schemas: [PATCH],
        Operations: [{ op: 'replace', path: 'userName', value: 'other' }],
      }),
      400,
      'mutability',
    );
    assertScimError(await scim('PATCH', `/Users/${userId}`, { Operations: [] }), 400, 'invalidSyntax');
  });

  it('replaces a User with PUT and deletes it, its past actions keeping its name', async () => {
    const replaced = await scim('PUT', `/Users/${userId}`, {
      ...BJENSEN,
      emails: [{ value: 'bjensen@example.com', type: 'work', primary: true }],
      displayName: 'Babs Jensen',
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.emails[0].value, 'bjensen@example.com');
    const deleted = await scim('DELETE', `/Users/${userId}`);
    assert.equal(deleted.status, 204);
    assertScimError(await scim('GET', `/Users/${userId}`), 404);
    assert.equal(await operator('bjensen'), undefined);
    const audit = await service.call('GET', '/v1/audit-log?actor=user:bjensen', { token: root });
    assert.ok(audit.body.items.length > 0, 'what bjensen did is still audited under their name');
  });
});
