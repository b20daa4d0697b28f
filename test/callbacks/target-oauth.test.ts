// OAuth to callback targets against a real token endpoint on 127.0.0.1, on the test store: what is sent, how tokens are cached and shared, when they are
// fetched again, and how every kind of token failure is reported without secrets.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { TargetAuthError, TargetOAuth } from '../../src/callbacks/target-oauth.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open.ts';
import { createConnection } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startTokenEndpoint, type TokenEndpoint } from './token-endpoint.ts';

const CLIENT_SECRET = 'S3cr:et/+ &=é-client-secret-value';

/**
 * Long enough that a local endpoint answering at once is never taken for a silent one on a loaded
 * machine (1 s was, once); the /silent case waits it out twice.
 */
const TOKEN_TIMEOUT_MS = 3000;

describe('OAuth to callback targets', () => {
  let service: TestService;
  let endpoint: TokenEndpoint;
  let token: string;
  const instances: TargetOAuth[] = [];
  const targetOAuth = (configChanges: Partial<TestService['config']> = {}, db = service.services.db) => {
    const instance = new TargetOAuth({
      db,
      keyring: service.services.keyring,
      config: { ...service.config, ...configChanges },
    });
    instances.push(instance);
    return instance;
  };

  before(async () => {
    endpoint = await startTokenEndpoint();
    service = await startTestService(
      { webhookAllowedHosts: ['127.0.0.1'], allowInsecureWebhooks: true, webhookTimeoutMs: TOKEN_TIMEOUT_MS },
      { captureLogs: true },
    );
    token = await service.rootToken();
  });
  const extraConnections: Database[] = [];
  async function secondConnection(): Promise<Database> {
    const db = await openDatabase(service.config);
    extraConnections.push(db);
    return db;
  }

  after(async () => {
    await Promise.all(instances.map((instance) => instance.close()));
    await Promise.all(extraConnections.map((db) => db.close()));
    await service.stop();
    await endpoint.close();
  });

  /** A connection whose oauth resource points at `path` of the token endpoint, with its own client id. */
  async function oauthConnection(key: string, path: string, scope = 'hooks:write') {
    await createConnection(service, key);
    const answer = await service.call('PUT', `/v1/connection/${key}/oauth`, {
      token,
      json: {
        grant_type: 'client_credentials',
        token_url: `${endpoint.origin}${path}`,
        scope,
        client_id: `client-${key}`,
        client_secret: CLIENT_SECRET,
      },
    });
    assert.equal(answer.status, 200, answer.text);
    return `client-${key}`;
  }

  async function cachedRows(key: string) {
    const { rows } = await service.services.db.query(
      'SELECT connection_key FROM target_oauth_tokens WHERE connection_key = $1',
      [key],
    );
    return rows.length;
  }

  it('answers null for a connection without OAuth and for an unknown connection, calling nobody', async () => {
    await createConnection(service, 'plain');
    const callsBefore = endpoint.calls.length;
    assert.equal(await targetOAuth().bearerFor('plain'), null);
    assert.equal(await targetOAuth().bearerFor('no_such_connection'), null);
    assert.equal(endpoint.calls.length, callsBefore);
  });

  it('sends the client credentials both by HTTP Basic and in the form body, with grant type and scope', async () => {
    const clientId = await oauthConnection('basic_and_form', '/token', 'hooks:write hooks:read');
    const bearer = await targetOAuth().bearerFor('basic_and_form');
    const [call] = endpoint.callsFor(clientId);
    assert.ok(call);
    assert.match(bearer ?? '', /^token-\d+-hooks:write\+hooks:read$/);
    assert.deepEqual(call.basic, { clientId, clientSecret: CLIENT_SECRET });
    assert.equal(call.contentType, 'application/x-www-form-urlencoded');
    assert.deepEqual(call.form, {
      grant_type: 'client_credentials',
      scope: 'hooks:write hooks:read',
      client_id: clientId,
      client_secret: CLIENT_SECRET,
    });
  });

  it('omits an empty scope from the form', async () => {
    const clientId = await oauthConnection('empty_scope', '/token', '');
    assert.match((await targetOAuth().bearerFor('empty_scope')) ?? '', /^token-\d+-noscope$/);
    assert.equal(endpoint.callsFor(clientId)[0]?.form.scope, undefined);
  });

  it('caches the token, shares it with a second instance on the same store, and shares one fetch in flight', async () => {
    const clientId = await oauthConnection('cached', '/token');
    const firstWorker = targetOAuth();
    // On PostgreSQL the second worker has a pool of its own, as a separate `lethe worker` process would;
    // the embedded store admits one process only, so there it shares the service's.
    const secondWorker = targetOAuth({}, await secondConnection());
    const concurrent = await Promise.all(Array.from({ length: 5 }, () => firstWorker.bearerFor('cached')));
    assert.equal(endpoint.callsFor(clientId).length, 1, 'five concurrent callers share one fetch');
    assert.equal(new Set(concurrent).size, 1);
    const [issued] = concurrent;
    assert.equal(await firstWorker.bearerFor('cached'), issued);
    assert.equal(await secondWorker.bearerFor('cached'), issued, 'the other worker reads the shared cache');
    assert.equal(endpoint.callsFor(clientId).length, 1);
    const { rows } = await service.services.db.query<{ sealed: Uint8Array }>(
      'SELECT access_token_sealed AS sealed FROM target_oauth_tokens WHERE connection_key = $1',
      ['cached'],
    );
    assert.ok(rows[0]);
    assert.ok(!Buffer.from(rows[0].sealed).includes(issued ?? 'missing'), 'the token is stored sealed');
  });

  it('fetches a new token after forget, for every instance', async () => {
    const clientId = await oauthConnection('forgotten', '/token');
    const firstWorker = targetOAuth();
    const secondWorker = targetOAuth({}, await secondConnection());
    const original = await firstWorker.bearerFor('forgotten');
    await secondWorker.forget('forgotten');
    const renewed = await firstWorker.bearerFor('forgotten');
    assert.notEqual(renewed, original);
    assert.equal(endpoint.callsFor(clientId).length, 2);
    assert.equal(await secondWorker.bearerFor('forgotten'), renewed);
    assert.equal(endpoint.callsFor(clientId).length, 2);
  });

  it('fetches a new token once the cached one nears its expires_in', async () => {
    const clientId = await oauthConnection('short_lived', '/token?expires_in=3');
    const worker = targetOAuth();
    const first = await worker.bearerFor('short_lived');
    assert.equal(await worker.bearerFor('short_lived'), first, 'still fresh right after the fetch');
    assert.equal(endpoint.callsFor(clientId).length, 1);
    await sleep(3000);
    const second = await worker.bearerFor('short_lived');
    assert.notEqual(second, first);
    assert.equal(endpoint.callsFor(clientId).length, 2);
  });

  it('assumes an hour when expires_in is missing and accepts it as a numeric string', async () => {
    for (const [key, path] of [
      ['no_lifetime', '/token-without-lifetime'],
      ['text_lifetime', '/token-lifetime-as-text'],
    ] as const) {
      const clientId = await oauthConnection(key, path);
      const worker = targetOAuth();
      const issued = await worker.bearerFor(key);
      assert.match(issued ?? '', /^token-/);
      assert.equal(await worker.bearerFor(key), issued);
      assert.equal(endpoint.callsFor(clientId).length, 1, path);
      const { rows } = await service.services.db.query<{ seconds: number }>(
        `SELECT extract(epoch FROM refresh_at - fetched_at)::float AS seconds
           FROM target_oauth_tokens WHERE connection_key = $1`,
        [key],
      );
      const expected = path === '/token-without-lifetime' ? 3600 - 30 : 120 - 12;
      assert.ok(Math.abs((rows[0]?.seconds ?? 0) - expected) < 5, `${path}: ${rows[0]?.seconds}`);
    }
  });

  it('stops using a cached token when the oauth resource is changed by PATCH or PUT', async () => {
    const clientId = await oauthConnection('reconfigured', '/token');
    const worker = targetOAuth();
    const original = await worker.bearerFor('reconfigured');
    assert.equal(endpoint.callsFor(clientId).length, 1);

    const scoped = await service.call('PATCH', '/v1/connection/reconfigured/oauth', {
      token,
      json: { scope: 'hooks:admin' },
    });
    assert.equal(scoped.status, 200, scoped.text);
    const afterScope = await worker.bearerFor('reconfigured');
    assert.notEqual(afterScope, original);
    assert.match(afterScope ?? '', /-hooks:admin$/);
    assert.equal(endpoint.callsFor(clientId).length, 2);
    assert.equal(await worker.bearerFor('reconfigured'), afterScope);

    const rotated = await service.call('PATCH', '/v1/connection/reconfigured/oauth', {
      token,
      json: { client_secret: `${CLIENT_SECRET}-rotated` },
    });
    assert.equal(rotated.status, 200, rotated.text);
    const afterSecret = await worker.bearerFor('reconfigured');
    assert.notEqual(afterSecret, afterScope);
    const calls = endpoint.callsFor(clientId);
    assert.equal(calls.length, 3);
    assert.equal(calls[2]?.basic?.clientSecret, `${CLIENT_SECRET}-rotated`);
    assert.equal(calls[2]?.form.client_secret, `${CLIENT_SECRET}-rotated`);

    const newClient = await service.call('PUT', '/v1/connection/reconfigured/oauth', {
      token,
      json: {
        grant_type: 'client_credentials',
        token_url: `${endpoint.origin}/token`,
        scope: 'hooks:admin',
        client_id: 'client-reconfigured-2',
        client_secret: CLIENT_SECRET,
      },
    });
    assert.equal(newClient.status, 200, newClient.text);
    assert.notEqual(await worker.bearerFor('reconfigured'), afterSecret);
    assert.equal(endpoint.callsFor('client-reconfigured-2').length, 1);
  });

  it('answers null once the oauth resource is deleted, and drops the cached token', async () => {
    const clientId = await oauthConnection('deauthorized', '/token');
    const worker = targetOAuth();
    assert.match((await worker.bearerFor('deauthorized')) ?? '', /^token-/);
    assert.equal(await cachedRows('deauthorized'), 1);
    const deleted = await service.call('DELETE', '/v1/connection/deauthorized/oauth', { token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal(await worker.bearerFor('deauthorized'), null);
    assert.equal(await cachedRows('deauthorized'), 0);
    assert.equal(endpoint.callsFor(clientId).length, 1);
  });

  const failures: [string, string, RegExp, TargetAuthError['failure']][] = [
    ['fails_500', '/server-error', /answered HTTP 500 \(server_error\)/, 'status'],
    ['fails_401', '/refused', /answered HTTP 401 \(invalid_client\)/, 'status'],
    ['fails_json', '/not-json', /without a JSON object/, 'invalid_response'],
    ['fails_no_token', '/no-access-token', /without a usable access_token/, 'invalid_response'],
    ['fails_unsafe_token', '/unsafe-token', /without a usable access_token/, 'invalid_response'],
    ['fails_type', '/not-bearer', /not a bearer token/, 'invalid_response'],
    ['fails_lifetime', '/negative-lifetime', /expires_in that is not a positive number/, 'invalid_response'],
    ['fails_redirect', '/redirect', /redirect \(HTTP 302\), which is not followed/, 'redirect'],
    ['fails_flood', '/flood', /more than 65536 bytes/, 'too_large'],
    ['fails_timeout', '/silent', new RegExp(`did not answer within ${TOKEN_TIMEOUT_MS} ms`), 'timeout'],
  ];
  for (const [key, path, reason, failure] of failures) {
    it(`reports a token endpoint failure (${path}) as a TargetAuthError without secrets, caching nothing`, async () => {
      const clientId = await oauthConnection(key, path);
      const worker = targetOAuth();
      for (let attempt = 1; attempt <= 2; attempt += 1) {
        const error = await worker.bearerFor(key).then(
          () => assert.fail('a token was answered'),
          (thrown: unknown) => thrown,
        );
        assert.ok(error instanceof TargetAuthError, String(error));
        assert.equal(error.failure, failure);
        assert.equal(error.connectionKey, key);
        assert.match(error.reason, reason);
        assert.ok(error.reason.includes(new URL(endpoint.origin).host), 'the reason names the token host');
        assert.ok(error.message.includes(error.reason));
        assert.ok(!error.message.includes(CLIENT_SECRET), 'the client secret never appears');
        assert.ok(!error.message.includes('cannot serve'), "the endpoint's text is not repeated");
        assert.equal(
          endpoint.callsFor(clientId).length,
          attempt,
          'each attempt asks again (nothing cached); a redirect is not followed',
        );
      }
      assert.equal(await cachedRows(key), 0);
    });
  }

  it('refuses a token URL the destination policy no longer allows, before calling it', async () => {
    const clientId = await oauthConnection('now_internal', '/token');
    for (const changes of [{ webhookAllowedHosts: [] }, { allowInsecureWebhooks: false }]) {
      const error = await targetOAuth(changes)
        .bearerFor('now_internal')
        .catch((thrown: unknown) => thrown);
      assert.ok(error instanceof TargetAuthError, String(error));
      assert.equal(error.failure, 'not_allowed');
      assert.match(error.reason, /token_url 127\.0\.0\.1:\d+ is not allowed/);
      assert.ok(!error.message.includes(CLIENT_SECRET));
    }
    assert.equal(endpoint.callsFor(clientId).length, 0);
  });

  it('reports an unreachable token endpoint with the system error code', async () => {
    const closed = await startTokenEndpoint();
    await closed.close();
    await createConnection(service, 'unreachable');
    const put = await service.call('PUT', '/v1/connection/unreachable/oauth', {
      token,
      json: {
        grant_type: 'client_credentials',
        token_url: `${closed.origin}/token`,
        scope: '',
        client_id: 'client-unreachable',
        client_secret: CLIENT_SECRET,
      },
    });
    assert.equal(put.status, 200, put.text);
    const error = await targetOAuth()
      .bearerFor('unreachable')
      .catch((thrown: unknown) => thrown);
    assert.ok(error instanceof TargetAuthError, String(error));
    assert.equal(error.failure, 'unreachable');
    assert.match(error.reason, /could not be reached \(ECONNREFUSED\)/);
  });

  it('never writes a client secret or an issued token to the log', async () => {
    const issuedTokens = endpoint.calls.length;
    assert.ok(issuedTokens > 0);
    const log = service.logLines.join('\n');
    assert.ok(!log.includes(CLIENT_SECRET));
    assert.ok(!/token-\d+-/.test(log));
  });
});
