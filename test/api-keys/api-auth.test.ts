import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient, createDatastore, issueKey } from '../helpers/area-b.ts';

const ENDPOINTS = [
  '/api/user/delete',
  '/api/user/forget',
  '/api/user/sar',
  '/api/entity/create',
  '/api/entity/delete',
  '/api/attribute/delete',
  '/api/attribute/update',
  '/api/entity/get-by-id',
  '/api/entity/get-by-identity',
  '/api/file/download',
  '/api/file/upload',
];

describe('Area B API keys, datastore header and rate limits', () => {
  let service: TestService;
  let key: string;
  before(async () => {
    service = await startTestService();
    await createDatastore(service, 'shop');
    await createDatastore(service, 'other');
    key = (await issueKey(service, ['shop', 'not-created-yet'])).key;
  });
  after(() => service.stop());

  it('answers 401 as text on every endpoint, POST and GET, without a valid key', async () => {
    for (const path of ENDPOINTS) {
      for (const method of ['POST', 'GET']) {
        const none = await service.call(method, path, { headers: { datastore: 'shop' } });
        assert.equal(none.status, 401, `${method} ${path}`);
        assert.match(none.headers.get('content-type') ?? '', /^text\/plain/);
        assert.match(none.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
        const unknown = await service.call(method, path, {
          headers: { datastore: 'shop', 'api-key': `lk_0000000000000000_${'A'.repeat(43)}` },
        });
        assert.equal(unknown.status, 401, `${method} ${path}`);
      }
    }
  });

  it('refuses forged, malformed and conflicting keys, and accepts Bearer', async () => {
    const [prefix, id] = key.split('_') as [string, string];
    const forged = `${prefix}_${id}_${'B'.repeat(43)}`;
    const cases: [Record<string, string>, number][] = [
      [{ 'api-key': forged }, 401],
      [{ 'api-key': 'not-a-key' }, 401],
      [{ 'api-key': `${key}x` }, 401],
      [{ authorization: `Bearer ${forged}` }, 401],
      [{ 'api-key': key, authorization: `Bearer ${forged}` }, 401],
      [{ authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` }, 401],
      [{ authorization: `Bearer ${key}` }, 200],
      [{ 'api-key': key, authorization: `Bearer ${key}` }, 200],
      [{ 'api-key': key }, 200],
    ];
    for (const [headers, status] of cases) {
      const answer = await service.call('POST', '/api/entity/get-by-id', {
        json: ['x'],
        headers: { datastore: 'shop', ...headers },
      });
      assert.equal(answer.status, status, JSON.stringify(headers));
      if (status === 401) assert.match(answer.text, /key/i);
    }
  });

  it('checks the datastore header: 400 missing, 403 not granted, 404 granted but not created', async () => {
    const call = (headers: Record<string, string>) =>
      service.call('POST', '/api/entity/get-by-id', { json: ['x'], headers: { 'api-key': key, ...headers } });
    const missing = await call({});
    assert.equal(missing.status, 400);
    assert.match(missing.text, /datastore header/);
    const notGranted = await call({ datastore: 'other' });
    assert.equal(notGranted.status, 403);
    assert.equal(notGranted.text, 'This API key may not use the datastore "other".');
    const notCreated = await call({ datastore: 'not-created-yet' });
    assert.equal(notCreated.status, 404);
    assert.equal(notCreated.text, 'The datastore "not-created-yet" does not exist.');
  });

  it('isolates datastores: a key never sees entities of a store it was not granted', async () => {
    const shop = await apiClient(service, 'iso-a');
    const other = await apiClient(service, 'iso-b');
    const created = await shop.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'iso@example.com' }] }],
    });
    const id = created.body[0].id;
    const crossKey = await service.call('POST', '/api/entity/get-by-id', {
      json: [id],
      headers: { 'api-key': other.key, datastore: 'iso-a' },
    });
    assert.equal(crossKey.status, 403);
    const ownStore = await other.call('/api/entity/get-by-id', { json: [id] });
    assert.equal(ownStore.body[0].error.code, 'not_found');
    const byIdentity = await other.call('/api/entity/get-by-identity', { json: ['iso@example.com'] });
    assert.deepEqual(byIdentity.body[0].entities, []);
    const forget = await other.call('/api/user/forget', { json: { entityId: id } });
    assert.equal(forget.status, 404);
    const stillThere = await shop.call('/api/entity/get-by-id', { json: [id] });
    assert.equal(stillThere.body[0].error, null);
  });

  it('limits each key per minute: 429 text with Retry-After and RateLimit-* headers', async () => {
    await createDatastore(service, 'limited');
    const limited = await issueKey(service, ['limited'], { rate_limit_per_minute: 3 });
    const other = await issueKey(service, ['limited'], { rate_limit_per_minute: 3 });
    const call = (apiKey: string) =>
      service.call('POST', '/api/entity/get-by-id', {
        json: ['x'],
        headers: { 'api-key': apiKey, datastore: 'limited' },
      });
    for (let remaining = 2; remaining >= 0; remaining -= 1) {
      const answer = await call(limited.key);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('ratelimit-limit'), '3');
      assert.equal(answer.headers.get('ratelimit-remaining'), String(remaining));
    }
    const refused = await call(limited.key);
    assert.equal(refused.status, 429);
    assert.match(refused.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(refused.text, /limit of 3 requests a minute/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter > 0 && retryAfter <= 60, String(retryAfter));
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal(refused.headers.get('ratelimit-reset'), String(retryAfter));
    assert.equal((await call(other.key)).status, 200, 'another key has its own budget');
    const noDatastore = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { 'api-key': limited.key },
    });
    assert.equal(noDatastore.status, 429, 'the rate limit is checked before the datastore header');
    const root = await service.rootToken();
    await service.call('PUT', '/v1/maintenance', { token: root, json: { enabled: true } });
    assert.equal((await call(limited.key)).status, 503, 'maintenance is checked before the rate limit');
    await service.call('PUT', '/v1/maintenance', { token: root, json: { enabled: false } });

    // Calls admitted from the gate's cache are counted in the process and flushed within 100 ms.
    const counted = async () =>
      (
        await service.services.db.query<{ key: string; hits: number }>(
          'SELECT key, hits FROM rate_limit_counters WHERE key = $1',
          [limited.id],
        )
      ).rows;
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && (await counted())[0]?.hits !== 5) await delay(50);
    assert.deepEqual(await counted(), [{ key: limited.id, hits: 5 }], 'PostgreSQL keeps the shared counters');
  });

  it('documents every Area B endpoint, POST and GET, with its status codes in the OpenAPI document', async () => {
    const document = await service.call('GET', '/openapi.json');
    for (const path of ENDPOINTS) {
      for (const method of ['post', 'get']) {
        const operation = document.body.paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        const success = path === '/api/entity/create' ? '203' : '200';
        for (const status of [success, '400', '401', '403', '404', '429', '503']) {
          assert.ok(operation.responses[status], `${method} ${path} ${status}`);
        }
      }
    }
    assert.ok(document.body.paths['/api/file/upload'].post.responses['413']);
    assert.ok(document.body.paths['/api/file/upload'].post.requestBody.content['multipart/form-data']);
    const management: [string, string, string][] = [
      ['/v1/datastore', 'post', '201'],
      ['/v1/datastore', 'get', '200'],
      ['/v1/datastore/{name}', 'delete', '204'],
      ['/v1/api-key', 'post', '201'],
      ['/v1/api-key', 'get', '200'],
      ['/v1/api-key/{id}', 'delete', '204'],
      ['/v1/maintenance', 'put', '200'],
      ['/v1/maintenance', 'get', '200'],
      ['/v1/audit-log', 'get', '200'],
    ];
    for (const [path, method, status] of management) {
      assert.ok(document.body.paths[path]?.[method]?.responses[status], `${method} ${path} ${status}`);
    }
    assert.equal(document.body.paths['/api/v1/datastore'], undefined);
    assert.equal(document.body.paths['/datastore'], undefined);
  });

  it('applies the default of 60 requests a minute to a key without its own limit', async () => {
    const answer = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { 'api-key': (await issueKey(service, ['shop'])).key, datastore: 'shop' },
    });
    assert.equal(answer.headers.get('ratelimit-limit'), '60');
    assert.equal(answer.headers.get('ratelimit-remaining'), '59');
  });
});

describe('Area B rate limits shared through Redis', () => {
  let service: TestService;
  const prefix = `lethe-test-${randomBytes(6).toString('hex')}:`;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
  before(async () => {
    service = await startTestService({ redisUrl: 'redis://127.0.0.1:6379', redisKeyPrefix: prefix });
    await redis.connect();
  });
  after(async () => {
    await service.stop();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('counts hits in Redis under the configured prefix and answers 429 past the limit', async () => {
    await createDatastore(service, 'shared');
    const limited = await issueKey(service, ['shared'], { rate_limit_per_minute: 2 });
    const call = () =>
      service.call('POST', '/api/entity/get-by-id', {
        json: ['x'],
        headers: { 'api-key': limited.key, datastore: 'shared' },
      });
    assert.equal((await call()).status, 200);
    assert.equal((await call()).status, 200);
    const refused = await call();
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const keys = await redis.keys(`${prefix}*`);
    assert.deepEqual(keys, [`${prefix}rate-limit:${limited.id}`]);
    assert.equal(await redis.get(keys[0] as string), '3');
    const rows = await service.services.db.query('SELECT 1 FROM rate_limit_counters');
    assert.equal(rows.rows.length, 0);
  });
});

describe('Area B when the rate-limit store is down', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ redisUrl: 'redis://127.0.0.1:9', redisKeyPrefix: 'lethe-down:' });
  });
  after(() => service.stop());

  it('answers 503 with Retry-After rather than letting calls through unlimited', async () => {
    await createDatastore(service, 'unlimited');
    const { key } = await issueKey(service, ['unlimited']);
    const answer = await service.call('POST', '/api/entity/get-by-id', {
      json: ['x'],
      headers: { 'api-key': key, datastore: 'unlimited' },
    });
    assert.equal(answer.status, 503);
    assert.equal(answer.text, 'The rate-limit store is unavailable; try again shortly.');
    assert.equal(answer.headers.get('retry-after'), '5');
  });
});
