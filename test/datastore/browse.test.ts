// The console's datastore browse over the management API: entity counts on the datastore list, a page of
// entities with attribute names only (never a value), and the reveal of one entity's or one attribute's
// values, each reveal audited (who, which entity) without the value. Bad input is a 4xx that changes
// nothing; a client without datastore:read is refused. Also the two lists the console reads from the
// service: scopes with descriptions and the masking strategies.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES } from '../../src/auth/scopes.ts';
import { MASKING_STRATEGY_NAMES } from '../../src/masking/strategies.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';

const SECRET_EMAIL = 'browse-secret@example.com';
const SECRET_PHONE = '+447700900123';

describe('browsing a datastore from the console', () => {
  let service: TestService;
  let root: string;
  let userId: string;
  let orderId: string;

  before(async () => {
    service = await startTestService();
    root = await service.rootToken();
    const api = await apiClient(service, 'shop');
    const users = await api.call('/api/entity/create', {
      json: [
        {
          name: 'users',
          attributes: [
            { name: 'email', value: SECRET_EMAIL },
            { name: 'phone', value: SECRET_PHONE },
          ],
        },
      ],
    });
    userId = users.body[0].id;
    const orders = await api.call('/api/entity/create', {
      json: [
        {
          name: 'orders',
          references: [{ parentId: userId, parentName: 'users' }],
          attributes: [{ name: 'address', value: '1 Secret Street' }],
        },
      ],
    });
    orderId = orders.body[0].id;
    await apiClient(service, 'empty');
  });
  after(async () => service?.stop());

  const audit = async () =>
    (await service.call('GET', '/v1/audit-log?action=entity.reveal&size=100', { token: root })).body;

  it('lists datastores with their entity counts', async () => {
    const listed = await service.call('GET', '/v1/datastore', { token: root });
    assert.equal(listed.status, 200);
    const counts = Object.fromEntries(
      listed.body.map((store: { name: string; entity_count: number; entity_count_capped: boolean }) => [
        store.name,
        [store.entity_count, store.entity_count_capped],
      ]),
    );
    assert.deepEqual(counts, { empty: [0, false], shop: [2, false] });
  });

  it('pages entities with attribute names and no value', async () => {
    const first = await service.call('GET', '/v1/datastore/shop/entity?size=1', { token: root });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.total, 2);
    assert.equal(first.body.pages, 2);
    assert.deepEqual(first.body.items, [
      {
        id: userId,
        name: 'users',
        created_at: first.body.items[0].created_at,
        parents: [],
        attributes: [
          { name: 'email', has_value: true },
          { name: 'phone', has_value: true },
        ],
        files: [],
      },
    ]);
    const second = await service.call('GET', '/v1/datastore/shop/entity?size=1&page=2', { token: root });
    assert.equal(second.body.items[0].id, orderId);
    assert.deepEqual(second.body.items[0].parents, [userId]);
    for (const answer of [first, second]) {
      assert.doesNotMatch(answer.text, /browse-secret|7700900123|Secret Street/);
    }
    assert.deepEqual((await audit()).items, [], 'browsing reveals nothing, so records no reveal');
  });

  it('reveals one attribute, then the whole entity, and audits each without the value', async () => {
    const one = await service.call('GET', `/v1/datastore/shop/entity/${userId}?attribute=email`, {
      token: root,
    });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.headers.get('cache-control'), 'no-store');
    assert.deepEqual(one.body.attributes, [{ name: 'email', value: SECRET_EMAIL }]);

    const all = await service.call('GET', `/v1/datastore/shop/entity/${userId}`, { token: root });
    assert.equal(all.status, 200, all.text);
    assert.deepEqual(all.body.attributes, [
      { name: 'email', value: SECRET_EMAIL },
      { name: 'phone', value: SECRET_PHONE },
    ]);

    const entries = (await audit()).items;
    assert.deepEqual(
      entries.map((entry: { action: string; actor: string; datastore: string; entity_ids: string[] }) => [
        entry.action,
        entry.actor,
        entry.datastore,
        entry.entity_ids,
      ]),
      [
        ['entity.reveal', 'client:root-test-client', 'shop', [userId]],
        ['entity.reveal', 'client:root-test-client', 'shop', [userId]],
      ],
    );
    assert.deepEqual(entries[1].details, { attribute: 'email', values_shown: 1 });
    assert.deepEqual(entries[0].details, { attribute: null, values_shown: 2 });
    assert.doesNotMatch(JSON.stringify(entries), /browse-secret|7700900123/);
  });

  it('refuses bad input with a clear 4xx and records nothing', async () => {
    const before = (await audit()).total;
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', '/v1/datastore/nope/entity', undefined, 404, /nope/],
      ['GET', '/v1/datastore/shop/entity?size=1000', undefined, 422, /size/],
      ['GET', '/v1/datastore/shop/entity?page=0', undefined, 422, /page/],
      ['GET', '/v1/datastore/shop/entity?page=500&size=100', undefined, 422, /page/],
      ['GET', '/v1/datastore/shop/entity?colour=red', undefined, 422, /colour/],
      ['GET', `/v1/datastore/shop/entity/not-a-uuid`, undefined, 422, /id/],
      ['GET', `/v1/datastore/shop/entity/${crypto.randomUUID()}`, undefined, 404, /No entity/],
      ['GET', `/v1/datastore/empty/entity/${userId}`, undefined, 404, /No entity/],
      ['GET', `/v1/datastore/shop/entity/${userId}?attribute=shoe_size`, undefined, 404, /shoe_size/],
      ['GET', `/v1/datastore/shop/entity/${userId}?attribute=email&x=1`, undefined, 422, /x/],
      ['GET', `/v1/datastore/shop/entity/${userId}?attribute=`, undefined, 422, /attribute/],
    ];
    for (const [method, path, json, status, detail] of cases) {
      const answer = await service.call(method, path, { token: root, json });
      assert.equal(answer.status, status, `${method} ${path}: ${answer.text}`);
      assert.match(answer.body.detail, detail, `${method} ${path}`);
    }
    assert.equal((await audit()).total, before, 'a refused reveal records nothing');
  });

  it('needs datastore:read, and a token', async () => {
    const other = await service.call('POST', '/v1/oauth/client', {
      token: root,
      json: { name: 'no datastores', scopes: ['policy:read'] },
    });
    const token = (
      await service.call('POST', '/v1/oauth/token', {
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: other.body.client_id,
          client_secret: other.body.client_secret,
        }),
      })
    ).body.access_token;
    const path = `/v1/datastore/shop/entity/${userId}`;
    assert.equal((await service.call('GET', path, { token })).status, 403);
    assert.equal((await service.call('GET', path)).status, 401);
    assert.equal((await service.call('GET', '/v1/datastore/shop/entity', { token })).status, 403);
  });

  it('serves the scopes with descriptions and the masking strategies, in the server order', async () => {
    const scopes = await service.call('GET', '/v1/oauth/scopes', { token: root });
    assert.equal(scopes.status, 200);
    assert.deepEqual(
      scopes.body.map((entry: { scope: string }) => entry.scope),
      [...SCOPES],
    );
    for (const entry of scopes.body) assert.ok(entry.description.length > 10, entry.scope);
    assert.equal((await service.call('GET', '/v1/oauth/scopes')).status, 401);

    const strategies = await service.call('GET', '/v1/masking/strategy', { token: root });
    assert.equal(strategies.status, 200);
    assert.deepEqual(
      strategies.body.map((entry: { name: string }) => entry.name),
      [...MASKING_STRATEGY_NAMES],
    );
    const rewrite = strategies.body.find((entry: { name: string }) => entry.name === 'string_rewrite');
    assert.deepEqual(rewrite.configurations, [
      { key: 'rewrite_value', optional: false, description: 'the text every value becomes' },
    ]);
  });
});
