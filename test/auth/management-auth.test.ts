import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AuthService } from '../../src/auth/service.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Long enough that no test's token runs out on a loaded machine; the expiry test ages its own token instead
// of waiting for it.
const TOKEN_TTL_SECONDS = 600;

describe('management authentication', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ accessTokenTtlSeconds: TOKEN_TTL_SECONDS });
  });
  after(() => service.stop());

  const root = () => service.config.rootClient as { id: string; secret: string };
  const form = (fields: Record<string, string>) => new URLSearchParams(fields);

  it('issues a bearer token for the root client from a form body', async () => {
    const answer = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials', client_id: root().id, client_secret: root().secret }),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.token_type, 'Bearer');
    assert.equal(answer.body.expires_in, TOKEN_TTL_SECONDS);
    assert.match(answer.body.access_token, /^lat_/);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  it('accepts a JSON body and HTTP Basic client authentication', async () => {
    const json = await service.call('POST', '/v1/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: root().id, client_secret: root().secret },
    });
    assert.equal(json.status, 200);
    const basic = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials' }),
      headers: { authorization: `Basic ${Buffer.from(`${root().id}:${root().secret}`).toString('base64')}` },
    });
    assert.equal(basic.status, 200);
  });

  it('answers a Basic header that does not decode (%zz) with 400 and a JSON detail, not 500', async () => {
    for (const credentials of [`%zz:${root().secret}`, `${root().id}:%E0%A4%A`]) {
      const answer = await service.call('POST', '/v1/oauth/token', {
        body: form({ grant_type: 'client_credentials' }),
        headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` },
      });
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.body.detail, /Authorization: Basic credentials are not valid/);
      assert.equal(answer.text.includes(root().secret), false);
    }
  });

  it('narrows a token to the requested scope; a scope beyond the client or unknown is 400 invalid_scope', async () => {
    const token = (fields: Record<string, string>) =>
      service.call('POST', '/v1/oauth/token', {
        body: form({ grant_type: 'client_credentials', ...fields }),
      });
    const narrowRoot = await token({
      client_id: root().id,
      client_secret: root().secret,
      scope: 'policy:read',
    });
    assert.equal(narrowRoot.status, 200, narrowRoot.text);
    assert.equal(narrowRoot.body.scope, 'policy:read');
    const narrow = narrowRoot.body.access_token as string;
    assert.equal((await service.call('GET', '/v1/dsr/policy', { token: narrow })).status, 200);
    assert.equal((await service.call('GET', '/v1/connection', { token: narrow })).status, 403);
    assert.equal((await service.call('GET', '/v1/oauth/client', { token: narrow })).status, 403, 'not root');

    const created = await service.call('POST', '/v1/oauth/client', {
      token: await service.rootToken(),
      json: { name: 'two scopes', scopes: ['policy:read', 'webhook:read'] },
    });
    const client = { client_id: created.body.client_id, client_secret: created.body.client_secret };
    const subset = await token({ ...client, scope: 'webhook:read' });
    assert.equal(subset.body.scope, 'webhook:read');
    assert.equal(
      (await service.call('GET', '/v1/dsr/policy', { token: subset.body.access_token })).status,
      403,
    );
    assert.equal((await token({ ...client, scope: '' })).body.scope, 'policy:read webhook:read');

    const tokensBefore = await service.services.db.query('SELECT 1 FROM oauth_access_tokens');
    for (const scope of ['connection:read', 'everything', 'policy:read connection:delete']) {
      const refused = await token({ ...client, scope });
      assert.equal(refused.status, 400, `${scope}: ${refused.text}`);
      assert.equal(refused.body.error, 'invalid_scope');
      assert.match(refused.body.detail, /does not hold or that do not exist/);
    }
    const wrongSecret = await token({ ...client, client_secret: 'wrong', scope: 'everything' });
    assert.equal(wrongSecret.status, 401, 'credentials are judged first');
    const tokensAfter = await service.services.db.query('SELECT 1 FROM oauth_access_tokens');
    assert.equal(tokensAfter.rows.length, tokensBefore.rows.length, 'no token issued');
  });

  it('ends root tokens when the root secret is rotated (a restart with a new secret); other tokens live on', async () => {
    const { db, keyring, config } = service.services;
    const ttl = config.accessTokenTtlSeconds;
    const before = new AuthService(db, root(), keyring, ttl);
    const rootToken = (await before.issueToken(root().id, root().secret)).access_token;
    const created = await before.createClient(
      { principal: await before.authenticate(rootToken), requestId: 'rotation-test' },
      { scopes: ['policy:read'] },
    );
    const clientToken = (await before.issueToken(created.client_id, created.client_secret)).access_token;

    const rotated = new AuthService(db, { id: root().id, secret: `${root().secret}-rotated` }, keyring, ttl);
    await assert.rejects(rotated.authenticate(rootToken), /not valid or has expired/);
    assert.equal((await rotated.authenticate(clientToken)).clientId, created.client_id);
    const fresh = (await rotated.issueToken(root().id, `${root().secret}-rotated`)).access_token;
    assert.equal((await rotated.authenticate(fresh)).clientId, root().id);
    await assert.rejects(
      before.authenticate(fresh),
      /not valid or has expired/,
      'and back: generations differ',
    );
    assert.equal((await before.authenticate(rootToken)).clientId, root().id);
    const renamed = new AuthService(db, { id: `${root().id}-renamed`, secret: root().secret }, keyring, ttl);
    await assert.rejects(renamed.authenticate(rootToken), /not valid or has expired/, 'a new root id too');
  });

  it('refuses wrong credentials with 401 and an unsupported grant with 422', async () => {
    const wrong = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials', client_id: root().id, client_secret: 'not-the-secret' }),
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.detail, 'The client credentials are not valid.');
    const grant = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'password', client_id: root().id, client_secret: root().secret }),
    });
    assert.equal(grant.status, 422);
    assert.match(grant.body.detail, /grant_type/);
    const missing = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials' }),
    });
    assert.equal(missing.status, 401);
  });

  it('answers 400 with a detail for malformed JSON', async () => {
    const answer = await service.call('POST', '/v1/oauth/token', {
      body: '{"grant_type":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(answer.status, 400);
    assert.equal(typeof answer.body.detail, 'string');
  });

  it('requires a token (401) and the scope (403) on management routes', async () => {
    const none = await service.call('GET', '/v1/oauth/client');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    const bogus = await service.call('GET', '/v1/oauth/client', { token: 'lat_forged' });
    assert.equal(bogus.status, 401);

    const rootToken = await service.rootToken();
    const created = await service.call('POST', '/v1/oauth/client', {
      token: rootToken,
      json: { name: 'reader', scopes: ['policy:read'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.client_id, /^cli_/);
    const readerToken = await service.call('POST', '/v1/oauth/token', {
      body: form({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }),
    });
    assert.equal(readerToken.status, 200);
    assert.equal(readerToken.body.scope, 'policy:read');
    const forbidden = await service.call('GET', '/v1/oauth/client', { token: readerToken.body.access_token });
    assert.equal(forbidden.status, 403);
  });

  it('decides 401 and 403 before reading the body, so bad bodies reveal no schema to outsiders', async () => {
    const rootToken = await service.rootToken();
    const created = await service.call('POST', '/v1/oauth/client', {
      token: rootToken,
      json: { name: 'policy-reader', scopes: ['policy:read'] },
    });
    const reader = await service.call('POST', '/v1/oauth/token', {
      body: form({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }),
    });
    const readerToken = reader.body.access_token as string;
    const malformed = { body: '[1', headers: { 'content-type': 'application/json' } };
    const calls: [string, string, Record<string, unknown>][] = [
      ['PATCH', '/v1/privacy-request/administrate/approve', { json: {} }],
      ['PUT', '/v1/policy/default_access_policy/webhook/pre_execution', { json: {} }],
      ['PATCH', '/v1/connection', malformed],
      ['PATCH', '/api/v1/dsr/policy', { json: 'not a list' }],
    ];
    for (const [method, path, options] of calls) {
      const anonymous = await service.call(method, path, options);
      assert.equal(anonymous.status, 401, `${method} ${path} without a token: ${anonymous.text}`);
      const underScoped = await service.call(method, path, { ...options, token: readerToken });
      assert.equal(underScoped.status, 403, `${method} ${path} without the scope: ${underScoped.text}`);
    }
    const unknownRequest = `/privacy-request/pri_${crypto.randomUUID()}/resume`;
    for (const options of [{ json: { halt: true } }, malformed]) {
      const resume = await service.call('POST', unknownRequest, { ...options, token: 'not-a-reply-token' });
      assert.equal(resume.status, 401, `resume with a bad token: ${resume.text}`);
    }
    const withRoot = await service.call('PUT', '/v1/policy/default_access_policy/webhook/pre_execution', {
      json: {},
      token: rootToken,
    });
    assert.equal(withRoot.status, 422, 'an authorised caller still gets the validation error');
  });

  it('lists clients without secrets and revokes tokens when a client is deleted', async () => {
    const rootToken = await service.rootToken();
    const created = await service.call('POST', '/v1/oauth/client', {
      token: rootToken,
      json: { scopes: ['webhook:read'] },
    });
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: form({
        grant_type: 'client_credentials',
        client_id: created.body.client_id,
        client_secret: created.body.client_secret,
      }),
    });
    const listed = await service.call('GET', '/v1/oauth/client', { token: rootToken });
    assert.equal(listed.status, 200);
    assert.ok(
      listed.body.some((client: { client_id: string }) => client.client_id === created.body.client_id),
    );
    assert.ok(!listed.text.includes(created.body.client_secret));

    const removed = await service.call('DELETE', `/v1/oauth/client/${created.body.client_id}`, {
      token: rootToken,
    });
    assert.equal(removed.status, 204);
    const again = await service.call('DELETE', `/v1/oauth/client/${created.body.client_id}`, {
      token: rootToken,
    });
    assert.equal(again.status, 404);
    const stale = await service.call('POST', '/v1/oauth/client', {
      token: issued.body.access_token,
      json: { scopes: [] },
    });
    assert.equal(stale.status, 401);
  });

  it('refuses unknown scopes and unknown fields with 422 and creates nothing', async () => {
    const rootToken = await service.rootToken();
    const before = await service.call('GET', '/v1/oauth/client', { token: rootToken });
    for (const json of [
      { scopes: ['everything'] },
      { scopes: [], surprise: true },
      { scopes: 'policy:read' },
      {},
    ]) {
      const answer = await service.call('POST', '/v1/oauth/client', { token: rootToken, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
      assert.equal(typeof answer.body.detail, 'string');
    }
    const afterwards = await service.call('GET', '/v1/oauth/client', { token: rootToken });
    assert.deepEqual(afterwards.body, before.body);
  });

  it('stores a token with its lifetime, and refuses it once that has passed', async () => {
    const digests = async () =>
      new Set(
        (
          await service.services.db.query<{ token_digest: Buffer }>(
            'SELECT token_digest FROM oauth_access_tokens',
          )
        ).rows.map((row) => row.token_digest.toString('hex')),
      );
    const before = await digests();
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials', client_id: root().id, client_secret: root().secret }),
    });
    assert.equal(issued.status, 200, issued.text);
    const [mine] = [...(await digests())].filter((hex) => !before.has(hex));
    assert.ok(mine, 'the token was stored');
    const { rows } = await service.services.db.query<{ seconds_left: number }>(
      `SELECT extract(epoch FROM expires_at - now())::float8 AS seconds_left FROM oauth_access_tokens
        WHERE token_digest = decode($1, 'hex')`,
      [mine],
    );
    const secondsLeft = rows[0]?.seconds_left ?? 0;
    assert.ok(
      secondsLeft > TOKEN_TTL_SECONDS - 120 && secondsLeft <= TOKEN_TTL_SECONDS,
      `${secondsLeft} s left`,
    );
    assert.equal(
      (await service.call('GET', '/v1/oauth/client', { token: issued.body.access_token })).status,
      200,
    );

    // Its lifetime passes: the stored expiry moves to a second ago, as the clock would have moved it.
    await service.services.db.query(
      `UPDATE oauth_access_tokens SET expires_at = now() - interval '1 second' WHERE token_digest = decode($1, 'hex')`,
      [mine],
    );
    assert.equal(
      (await service.call('GET', '/v1/oauth/client', { token: issued.body.access_token })).status,
      401,
    );
  });

  it('answers the same routes under /v1, /api/v1 and bare', async () => {
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: form({ grant_type: 'client_credentials', client_id: root().id, client_secret: root().secret }),
    });
    const rootToken = issued.body.access_token;
    for (const prefix of ['/v1', '/api/v1', '']) {
      const answer = await service.call('GET', `${prefix}/oauth/client`, { token: rootToken });
      assert.equal(answer.status, 200, prefix);
    }
  });
});
