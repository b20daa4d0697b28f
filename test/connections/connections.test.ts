import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openText } from '../../src/crypto/secret-box.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createConnection, read, scopedToken } from './support.ts';

const PUBLIC_URL = 'https://93.184.216.34/hooks/lethe';

describe('connections', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
  });
  after(() => service.stop());

  const patch = (json: unknown) => service.call('PATCH', '/v1/connection', { token, json });

  it('creates connections in bulk and answers them with GET, one and paged', async () => {
    const answer = await patch([
      { name: 'Billing', key: 'billing', connection_type: 'https', access: 'read', description: 'Invoices' },
      { name: 'CRM', key: 'crm', connection_type: 'https', access: 'write' },
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.failed, []);
    assert.deepEqual(
      answer.body.succeeded.map((connection: { key: string }) => connection.key),
      ['billing', 'crm'],
    );
    // A created connection shows its signing secret once; GET never does (test/callbacks/signing.test.ts).
    const { signing_secret: signingSecret, ...billing } = answer.body.succeeded[0];
    assert.match(signingSecret, /^whsec_/);
    assert.equal(billing.name, 'Billing');
    assert.equal(billing.connection_type, 'https');
    assert.equal(billing.access, 'read');
    assert.equal(billing.description, 'Invoices');
    assert.equal(billing.secrets, null);
    assert.equal(billing.oauth, null);
    assert.equal(billing.webhooks_using, 0);
    assert.ok(!Number.isNaN(Date.parse(billing.created_at)));

    assert.deepEqual(await read(service, '/v1/connection/billing'), billing);
    const crm = await read(service, '/v1/connection/crm');
    assert.equal(crm.description, null);

    const firstPage = await read(service, '/v1/connection?page=1&size=1');
    assert.equal(firstPage.total, 2);
    assert.equal(firstPage.page, 1);
    assert.equal(firstPage.size, 1);
    assert.deepEqual(
      firstPage.items.map((connection: { key: string }) => connection.key),
      ['billing'],
    );
    const secondPage = await read(service, '/v1/connection?page=2&size=1');
    assert.deepEqual(
      secondPage.items.map((connection: { key: string }) => connection.key),
      ['crm'],
    );
    const defaults = await read(service, '/v1/connection');
    assert.equal(defaults.page, 1);
    assert.equal(defaults.size, 50);
    assert.equal(defaults.items.length, 2);
  });

  it('updates an existing connection in place, keeping its secrets and omitted description', async () => {
    await createConnection(service, 'updatable');
    const secrets = await service.call('PUT', '/v1/connection/updatable', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer keep-me' },
    });
    assert.equal(secrets.status, 200);
    await patch([
      { name: 'Before', key: 'updatable', connection_type: 'https', access: 'read', description: 'kept' },
    ]);
    const renamed = await patch([
      { name: 'After', key: 'updatable', connection_type: 'https', access: 'write' },
    ]);
    assert.equal(renamed.status, 200);
    const updated = renamed.body.succeeded[0];
    assert.equal(updated.name, 'After');
    assert.equal(updated.access, 'write');
    assert.equal(updated.description, 'kept');
    assert.deepEqual(updated.secrets, { url: PUBLIC_URL, authorization: '**********' });
    const cleared = await patch([
      { name: 'After', key: 'updatable', connection_type: 'https', access: 'write', description: null },
    ]);
    assert.equal(cleared.body.succeeded[0].description, null);
  });

  it('reports each bad item in failed while the good ones apply, never echoing unknown fields', async () => {
    const answer = await patch([
      { name: 'Good', key: 'good_one', connection_type: 'https', access: 'read' },
      { key: 'no_name', connection_type: 'https', access: 'read' },
      { name: 'Typed', key: 'typed', connection_type: 'https', access: 7 },
      { name: 'Access', key: 'bad_access', connection_type: 'https', access: 'admin' },
      {
        name: 'Extra',
        key: 'extra',
        connection_type: 'https',
        access: 'read',
        secrets: { authorization: 'x' },
      },
      { name: 'Pg', key: 'pg_conn', connection_type: 'postgres', access: 'read' },
      { name: 'Key', key: 'has space', connection_type: 'https', access: 'read' },
      { name: 'Twice', key: 'good_one', connection_type: 'https', access: 'read' },
      'not an object',
    ]);
    assert.equal(answer.status, 422, 'a non-object item makes the body itself invalid');

    const mixed = await patch([
      { name: 'Good', key: 'good_one', connection_type: 'https', access: 'read' },
      { key: 'no_name', connection_type: 'https', access: 'read' },
      { name: 'Typed', key: 'typed', connection_type: 'https', access: 7 },
      { name: 'Access', key: 'bad_access', connection_type: 'https', access: 'admin' },
      {
        name: 'Extra',
        key: 'extra',
        connection_type: 'https',
        access: 'read',
        secrets: { authorization: 'x' },
      },
      { name: 'Pg', key: 'pg_conn', connection_type: 'postgres', access: 'read' },
      { name: 'Key', key: 'has space', connection_type: 'https', access: 'read' },
      { name: 'Twice', key: 'good_one', connection_type: 'https', access: 'read' },
    ]);
    assert.equal(mixed.status, 200);
    assert.deepEqual(
      mixed.body.succeeded.map((connection: { key: string }) => connection.key),
      ['good_one'],
    );
    const messages = mixed.body.failed.map((failure: { message: string }) => failure.message);
    assert.equal(messages.length, 7);
    assert.match(messages[0], /name is required/);
    assert.match(messages[1], /access/);
    assert.match(messages[2], /access/);
    assert.match(messages[3], /secrets is not an accepted field/);
    assert.match(messages[4], /connection_type must be https/);
    assert.match(
      messages[5],
      /^key must hold only letters, digits, _, . and -, and start with a letter, a digit or _\.$/,
    );
    assert.match(messages[6], /good_one appears more than once/);
    const extra = mixed.body.failed[3].data;
    assert.deepEqual(extra, { name: 'Extra', key: 'extra', connection_type: 'https', access: 'read' });
    for (const key of ['no_name', 'typed', 'bad_access', 'extra', 'pg_conn']) {
      assert.equal((await service.call('GET', `/v1/connection/${key}`, { token })).status, 404, key);
    }
  });

  it('refuses a body that is not an array of at most 50 objects with 422 and changes nothing', async () => {
    const before = await read(service, '/v1/connection?size=1000');
    const tooMany = Array.from({ length: 51 }, (_, index) => ({
      name: `Bulk ${index}`,
      key: `bulk_${index}`,
      connection_type: 'https',
      access: 'read',
    }));
    for (const json of [{ name: 'x', key: 'x' }, 'text', ['a', 'b'], [1], tooMany, null]) {
      const answer = await patch(json);
      assert.equal(answer.status, 422, JSON.stringify(json).slice(0, 60));
      assert.equal(typeof answer.body.detail, 'string');
    }
    const malformed = await service.call('PATCH', '/v1/connection', {
      token,
      body: '[{"name":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.deepEqual(await read(service, '/v1/connection?size=1000'), before);
  });

  it('answers 404 for unknown keys and 422 for bad paging or key shapes', async () => {
    for (const [method, path] of [
      ['GET', '/v1/connection/nobody'],
      ['DELETE', '/v1/connection/nobody'],
      ['DELETE', '/v1/connection/nobody/oauth'],
    ] as const) {
      const answer = await service.call(method, path, { token });
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.match(answer.body.detail, /nobody/);
    }
    const secrets = await service.call('PUT', '/v1/connection/nobody', { token, json: { url: PUBLIC_URL } });
    assert.equal(secrets.status, 404);
    for (const query of ['page=0', 'size=0', 'size=1001', 'page=first']) {
      assert.equal((await service.call('GET', `/v1/connection?${query}`, { token })).status, 422, query);
    }
    assert.equal((await service.call('GET', '/v1/connection/bad%20key', { token })).status, 422);
  });

  it('stores secrets sealed and answers them masked', async () => {
    await createConnection(service, 'sealed');
    const authorization = 'Basic c2VjcmV0LXZhbHVlLWZvci10ZXN0';
    const answer = await service.call('PUT', '/v1/connection/sealed', {
      token,
      json: { url: PUBLIC_URL, authorization },
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.secrets, { url: PUBLIC_URL, authorization: '**********' });
    assert.ok(!answer.text.includes(authorization));

    const { rows } = await service.services.db.query<{ secrets_authorization_sealed: Uint8Array }>(
      "SELECT secrets_authorization_sealed FROM connections WHERE key = 'sealed'",
    );
    const sealed = Buffer.from(rows[0]?.secrets_authorization_sealed as Uint8Array);
    assert.ok(!sealed.toString('latin1').includes(authorization));
    const key = service.services.keyring.key('connection-secrets');
    assert.equal(openText(key, sealed, 'connection:sealed:authorization'), authorization);
    assert.throws(() => openText(key, sealed, 'connection:other:authorization'));

    const withoutAuthorization = await service.call('PUT', '/v1/connection/sealed', {
      token,
      json: { url: `${PUBLIC_URL}/v2` },
    });
    assert.equal(withoutAuthorization.status, 200);
    assert.deepEqual(withoutAuthorization.body.secrets, { url: `${PUBLIC_URL}/v2`, authorization: null });
  });

  it('refuses bad secrets bodies with 422 and keeps the stored secrets', async () => {
    await createConnection(service, 'guarded');
    await service.call('PUT', '/v1/connection/guarded', {
      token,
      json: { url: PUBLIC_URL, authorization: 'A' },
    });
    const before = await read(service, '/v1/connection/guarded');
    const bodies: unknown[] = [
      {},
      { authorization: 'only' },
      { url: 42 },
      { url: PUBLIC_URL, authorization: 7 },
      { url: PUBLIC_URL, extra: true },
      { url: 'not a url' },
      { url: 'http://93.184.216.34/hook' },
      { url: 'https://127.0.0.1/hook' },
      { url: 'https://[::1]/hook' },
      { url: 'https://169.254.169.254/latest/meta-data' },
      { url: 'https://localhost:8443/hook' },
      { url: 'https://10.1.2.3/hook' },
      [],
    ];
    for (const json of bodies) {
      const answer = await service.call('PUT', '/v1/connection/guarded', { token, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
      assert.equal(typeof answer.body.detail, 'string');
    }
    const internal = await service.call('PUT', '/v1/connection/guarded', {
      token,
      json: { url: 'https://169.254.169.254/' },
    });
    assert.match(internal.body.detail, /^url points to an internal address 169\.254\.169\.254/);
    const insecure = await service.call('PUT', '/v1/connection/guarded', {
      token,
      json: { url: 'http://93.184.216.34/' },
    });
    assert.match(insecure.body.detail, /url must use https/);
    assert.deepEqual(await read(service, '/v1/connection/guarded'), before);
  });

  it('sets, patches and deletes the OAuth configuration', async () => {
    await createConnection(service, 'oauthed');
    const oauth = {
      grant_type: 'client_credentials',
      token_url: 'https://93.184.216.34/oauth/token',
      scope: 'hooks:write hooks:read',
      client_id: 'lethe-client',
      client_secret: 'first-client-secret',
    };
    const put = await service.call('PUT', '/v1/connection/oauthed/oauth', { token, json: oauth });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body.oauth, { ...oauth, client_secret: '**********' });

    const patched = await service.call('PATCH', '/v1/connection/oauthed/oauth', {
      token,
      json: { scope: 'hooks:write' },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.oauth, { ...oauth, scope: 'hooks:write', client_secret: '**********' });

    const rotated = await service.call('PATCH', '/v1/connection/oauthed/oauth', {
      token,
      json: { client_secret: 'second-client-secret' },
    });
    assert.equal(rotated.status, 200);
    const { rows } = await service.services.db.query<{ oauth_client_secret_sealed: Uint8Array }>(
      "SELECT oauth_client_secret_sealed FROM connections WHERE key = 'oauthed'",
    );
    assert.equal(
      openText(
        service.services.keyring.key('connection-secrets'),
        rows[0]?.oauth_client_secret_sealed as Uint8Array,
        'connection:oauthed:oauth_client_secret',
      ),
      'second-client-secret',
    );

    const conflicting = await service.call('PUT', '/v1/connection/oauthed', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer static' },
    });
    assert.equal(conflicting.status, 409);
    assert.match(conflicting.body.detail, /delete its oauth resource/);
    const urlOnly = await service.call('PUT', '/v1/connection/oauthed', { token, json: { url: PUBLIC_URL } });
    assert.equal(urlOnly.status, 200);

    const removed = await service.call('DELETE', '/v1/connection/oauthed/oauth', { token });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.oauth, null);
    assert.deepEqual(removed.body.secrets, { url: PUBLIC_URL, authorization: null });
    assert.equal((await service.call('DELETE', '/v1/connection/oauthed/oauth', { token })).status, 404);
    const patchMissing = await service.call('PATCH', '/v1/connection/oauthed/oauth', {
      token,
      json: { scope: 'x' },
    });
    assert.equal(patchMissing.status, 422);
    assert.match(patchMissing.body.detail, /no OAuth configuration/);
    assert.equal((await read(service, '/v1/connection/oauthed')).oauth, null);
    const staticAgain = await service.call('PUT', '/v1/connection/oauthed', {
      token,
      json: { url: PUBLIC_URL, authorization: 'Bearer static' },
    });
    assert.equal(staticAgain.status, 200);
  });

  it('refuses bad OAuth bodies with 422 and keeps the stored configuration', async () => {
    await createConnection(service, 'oauth_guarded');
    const good = {
      grant_type: 'client_credentials',
      token_url: 'https://93.184.216.34/token',
      scope: 'a',
      client_id: 'id',
      client_secret: 'kept-secret',
    };
    assert.equal(
      (await service.call('PUT', '/v1/connection/oauth_guarded/oauth', { token, json: good })).status,
      200,
    );
    const before = await read(service, '/v1/connection/oauth_guarded');
    const { client_secret: _omitted, ...withoutSecret } = good;
    for (const json of [
      withoutSecret,
      { ...good, grant_type: 'password' },
      { ...good, token_url: 'https://127.0.0.1/token' },
      { ...good, token_url: 'http://93.184.216.34/token' },
      { ...good, scope: 5 },
      { ...good, extra: 'field' },
      {},
    ]) {
      const answer = await service.call('PUT', '/v1/connection/oauth_guarded/oauth', { token, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
    }
    const refused = await service.call('PUT', '/v1/connection/oauth_guarded/oauth', {
      token,
      json: { ...good, token_url: 'https://[::1]/token' },
    });
    assert.match(refused.body.detail, /^token_url points to an internal address/);
    for (const json of [
      {},
      { grant_type: 'authorization_code' },
      { token_url: 'https://169.254.169.254/' },
      { client_id: '' },
      { surprise: 1 },
    ]) {
      const answer = await service.call('PATCH', '/v1/connection/oauth_guarded/oauth', { token, json });
      assert.equal(answer.status, 422, JSON.stringify(json));
    }
    assert.equal(
      (await service.call('PUT', '/v1/connection/nobody/oauth', { token, json: good })).status,
      404,
    );
    assert.equal(
      (await service.call('PATCH', '/v1/connection/nobody/oauth', { token, json: { scope: 'b' } })).status,
      404,
    );
    assert.deepEqual(await read(service, '/v1/connection/oauth_guarded'), before);
  });

  it('deletes an unused connection with 204', async () => {
    await createConnection(service, 'doomed');
    const removed = await service.call('DELETE', '/v1/connection/doomed', { token });
    assert.equal(removed.status, 204);
    assert.equal(removed.text, '');
    assert.equal((await service.call('GET', '/v1/connection/doomed', { token })).status, 404);
    assert.equal((await service.call('DELETE', '/v1/connection/doomed', { token })).status, 404);
  });

  it('requires a token and the connection scopes', async () => {
    await createConnection(service, 'scoped');
    assert.equal((await service.call('GET', '/v1/connection')).status, 401);
    const reader = await scopedToken(service, ['connection:read']);
    const writer = await scopedToken(service, ['connection:create_or_update']);
    const unrelated = await scopedToken(service, ['policy:read', 'webhook:create_or_update']);
    const before = await read(service, '/v1/connection/scoped');

    assert.equal((await service.call('GET', '/v1/connection', { token: reader })).status, 200);
    assert.equal((await service.call('GET', '/v1/connection/scoped', { token: reader })).status, 200);
    const item = [{ name: 'Renamed', key: 'scoped', connection_type: 'https', access: 'read' }];
    const oauth = {
      grant_type: 'client_credentials',
      token_url: 'https://93.184.216.34/token',
      scope: '',
      client_id: 'id',
      client_secret: 'secret',
    };
    const writes: [string, string, unknown][] = [
      ['PATCH', '/v1/connection', item],
      ['PUT', '/v1/connection/scoped', { url: PUBLIC_URL }],
      ['PUT', '/v1/connection/scoped/oauth', oauth],
      ['PATCH', '/v1/connection/scoped/oauth', { scope: 'x' }],
      ['DELETE', '/v1/connection/scoped/oauth', undefined],
      ['DELETE', '/v1/connection/scoped', undefined],
    ];
    for (const [method, path, json] of writes) {
      assert.equal(
        (await service.call(method, path, { token: reader, json })).status,
        403,
        `${method} ${path}`,
      );
      assert.equal((await service.call(method, path, { token: unrelated, json })).status, 403);
    }
    assert.equal((await service.call('GET', '/v1/connection', { token: writer })).status, 403);
    assert.equal((await service.call('DELETE', '/v1/connection/scoped', { token: writer })).status, 403);
    assert.deepEqual(await read(service, '/v1/connection/scoped'), before);

    const deleter = await scopedToken(service, ['connection:delete']);
    assert.equal((await service.call('DELETE', '/v1/connection/scoped', { token: deleter })).status, 204);
  });

  it('answers under /v1, /api/v1 and bare', async () => {
    await createConnection(service, 'everywhere');
    for (const prefix of ['/v1', '/api/v1', '']) {
      const answer = await service.call('GET', `${prefix}/connection/everywhere`, { token });
      assert.equal(answer.status, 200, prefix);
      assert.equal(answer.body.key, 'everywhere');
    }
  });
});

describe('connection destinations with an allow-list and insecure webhooks', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ allowInsecureWebhooks: true, webhookAllowedHosts: ['127.0.0.1'] });
  });
  after(() => service.stop());

  it('accepts a listed internal host and http, and still refuses unlisted internal hosts', async () => {
    const token = await service.rootToken();
    await createConnection(service, 'local');
    const listed = await service.call('PUT', '/v1/connection/local', {
      token,
      json: { url: 'http://127.0.0.1:9/hook' },
    });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.secrets.url, 'http://127.0.0.1:9/hook');
    const tokenUrl = await service.call('PUT', '/v1/connection/local/oauth', {
      token,
      json: {
        grant_type: 'client_credentials',
        token_url: 'http://127.0.0.1:9/token',
        scope: '',
        client_id: 'id',
        client_secret: 'secret',
      },
    });
    assert.equal(tokenUrl.status, 200, tokenUrl.text);
    for (const url of ['http://[::1]/hook', 'https://169.254.169.254/', 'http://127.0.0.2/']) {
      const answer = await service.call('PUT', '/v1/connection/local', { token, json: { url } });
      assert.equal(answer.status, 422, url);
    }
    assert.equal((await read(service, '/v1/connection/local')).secrets.url, 'http://127.0.0.1:9/hook');
  });
});
