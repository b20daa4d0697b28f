// Fides' policy-webhook paths under /api/v1, checked for the behaviours Fides' own API tests pin down
// (pages, keys derived from names, 400 for duplicates and an order out of range, new_order only when
// the order changed), while Lethe's paths keep their answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createConnection, scopedToken } from '../connections/support.ts';

const BASE = '/api/v1/dsr/policy';

describe('Fides policy webhook paths', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    await createConnection(service, 'crm_hook', 'CRM hook');
  });
  after(async () => service.stop());

  async function newPolicy(key: string) {
    const created = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: key, key, drp_action: 'access' }],
    });
    assert.deepEqual(created.body.failed, [], created.text);
  }
  const hook = (name: string, direction = 'one_way', key?: string) => ({
    connection_config_key: 'crm_hook',
    direction,
    name,
    ...(key ? { key } : {}),
  });
  const put = (policy: string, timing: string, body: unknown) =>
    service.call('PUT', `${BASE}/${policy}/webhook/${timing}`, { token, json: body });
  const keysOf = async (policy: string, timing = 'pre_execution') => {
    const page = await service.call('GET', `${BASE}/${policy}/webhook/${timing}`, { token });
    assert.equal(page.status, 200, page.text);
    return (page.body.items as { key: string; order: number }[]).map((item) => `${item.key}:${item.order}`);
  };

  it('answers a page of webhooks with the embedded connection as Fides shapes it', async () => {
    await newPolicy('paged');
    const created = await put('paged', 'pre_execution', [
      hook('Poke Snowflake', 'one_way', 'poke_snowflake'),
      hook('My Pre Execution Webhook', 'two_way'),
    ]);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(
      created.body.map((item: { key: string; order: number; direction: string }) => [
        item.key,
        item.order,
        item.direction,
      ]),
      [
        ['poke_snowflake', 0, 'one_way'],
        ['my_pre_execution_webhook', 1, 'two_way'],
      ],
    );
    const connection = await service.call('GET', '/v1/connection/crm_hook', { token });
    const page = await service.call('GET', `${BASE}/paged/webhook/pre_execution`, { token });
    assert.equal(page.status, 200);
    assert.deepEqual(Object.keys(page.body).sort(), ['items', 'page', 'pages', 'size', 'total']);
    assert.deepEqual([page.body.total, page.body.page, page.body.size, page.body.pages], [2, 1, 50, 1]);
    assert.deepEqual(page.body.items[0], {
      direction: 'one_way',
      key: 'poke_snowflake',
      name: 'Poke Snowflake',
      order: 0,
      connection_config: {
        name: 'CRM hook',
        key: 'crm_hook',
        connection_type: 'https',
        access: 'read',
        created_at: connection.body.created_at,
        updated_at: connection.body.updated_at,
        last_test_timestamp: null,
        last_test_succeeded: null,
        disabled: false,
        description: null,
        saas_config: null,
        secrets: null,
        authorized: false,
        enabled_actions: null,
      },
    });
    const second = await service.call('GET', `${BASE}/paged/webhook/pre_execution?page=2&size=1`, { token });
    assert.deepEqual(
      [second.body.items.map((item: { key: string }) => item.key), second.body.pages],
      [['my_pre_execution_webhook'], 2],
    );
    const single = await service.call('GET', `${BASE}/paged/webhook/pre_execution/poke_snowflake`, { token });
    assert.deepEqual(single.body, page.body.items[0]);

    // Lethe's own paths keep their shapes: a plain array, the short embedded connection.
    const lethe = await service.call('GET', '/api/v1/policy/paged/webhook/pre_execution', { token });
    assert.ok(Array.isArray(lethe.body));
    assert.deepEqual(Object.keys(lethe.body[0].connection_config).sort(), [
      'access',
      'connection_type',
      'key',
      'name',
    ]);
  });

  it('needs a token with the webhook scopes and answers 404 for an unknown policy or webhook', async () => {
    await newPolicy('guarded');
    const path = `${BASE}/guarded/webhook/post_execution`;
    assert.equal((await service.call('GET', path)).status, 401);
    const policyReader = await scopedToken(service, ['policy:read']);
    assert.equal((await service.call('GET', path, { token: policyReader })).status, 403);
    const reader = await scopedToken(service, ['webhook:read']);
    assert.equal((await service.call('GET', path, { token: reader })).status, 200);
    assert.equal((await service.call('PUT', path, { token: reader, json: [] })).status, 403);
    assert.equal((await service.call('DELETE', `${path}/x`, { token: reader })).status, 403);
    assert.equal((await service.call('GET', `${BASE}/nope/webhook/post_execution`, { token })).status, 404);
    assert.equal((await service.call('GET', `${path}/missing`, { token })).status, 404);
  });

  it('refuses duplicate keys or names with 400, unknown connections with 404, bad directions with 422, changing nothing', async () => {
    await newPolicy('strict');
    assert.equal((await put('strict', 'pre_execution', [hook('Keep me', 'one_way', 'keep')])).status, 200);
    const sameKey = await put('strict', 'pre_execution', [
      hook('A', 'one_way', 'dup'),
      hook('B', 'one_way', 'dup'),
    ]);
    assert.equal(sameKey.status, 400);
    assert.match(sameKey.body.detail, /multiple webhooks whose keys or names resolve to the same value/);
    const keyFromName = await put('strict', 'pre_execution', [
      hook('Poke Snowflake', 'one_way', 'poke_snowflake'),
      hook('Poke  Snowflake!'),
    ]);
    assert.equal(keyFromName.status, 400);
    const sameName = await put('strict', 'pre_execution', [
      hook('Twin', 'one_way', 'a'),
      hook('Twin', 'one_way', 'b'),
    ]);
    assert.equal(sameName.status, 400);
    const unknown = await put('strict', 'pre_execution', [
      hook('Fine', 'one_way', 'fine'),
      { connection_config_key: 'unknown_connection_key', direction: 'one_way', name: 'Lost' },
    ]);
    assert.equal(unknown.status, 404);
    const badDirection = await put('strict', 'pre_execution', [hook('Odd', 'sideways')]);
    assert.equal(badDirection.status, 422);
    const noLetters = await put('strict', 'pre_execution', [hook('!!!')]);
    assert.equal(noLetters.status, 422);
    const neither = await put('strict', 'pre_execution', [
      { connection_config_key: 'crm_hook', direction: 'one_way' },
    ]);
    assert.equal(neither.status, 422);
    assert.deepEqual(await keysOf('strict'), ['keep:0']);
  });

  it('reorders by PUT and drops the webhooks a PUT leaves out', async () => {
    await newPolicy('reordered');
    await put('reordered', 'post_execution', [
      hook('First', 'one_way', 'first'),
      hook('Second', 'two_way', 'second'),
    ]);
    const flipped = await put('reordered', 'post_execution', [
      hook('Second', 'two_way', 'second'),
      hook('First', 'one_way', 'first'),
    ]);
    assert.deepEqual(
      flipped.body.map((item: { key: string; order: number }) => `${item.key}:${item.order}`),
      ['second:0', 'first:1'],
    );
    const fewer = await put('reordered', 'post_execution', [hook('First', 'one_way', 'first')]);
    assert.equal(fewer.body.length, 1);
    assert.deepEqual(await keysOf('reordered', 'post_execution'), ['first:0']);
    const keyOnly = await put('reordered', 'post_execution', [
      { connection_config_key: 'crm_hook', direction: 'one_way', key: 'first' },
    ]);
    assert.equal(keyOnly.status, 200, keyOnly.text);
    assert.deepEqual([keyOnly.body[0].key, keyOnly.body[0].name], ['first', 'first']);
  });

  it('PATCH answers new_order only when the order changed; an order out of range is 400 and changes nothing', async () => {
    await newPolicy('patched');
    await put('patched', 'pre_execution', [
      hook('One way', 'one_way', 'one'),
      hook('Two way', 'two_way', 'two'),
    ]);
    const path = `${BASE}/patched/webhook/pre_execution/one`;
    const renamed = await service.call('PATCH', path, { token, json: { name: 'Renamed' } });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.resource.name, 'Renamed');
    assert.equal(renamed.body.resource.order, 0);
    assert.deepEqual(renamed.body.new_order, []);

    const moved = await service.call('PATCH', path, {
      token,
      json: { name: 'Moved', order: 1, direction: 'two_way' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.deepEqual([moved.body.resource.order, moved.body.resource.direction], [1, 'two_way']);
    assert.deepEqual(moved.body.new_order, [
      { key: 'two', order: 0 },
      { key: 'one', order: 1 },
    ]);

    const sameOrder = await service.call('PATCH', path, { token, json: { order: 1 } });
    assert.deepEqual(sameOrder.body.new_order, []);
    const empty = await service.call('PATCH', path, { token, json: {} });
    assert.equal(empty.status, 200);
    assert.equal(empty.body.resource.key, 'one');

    for (const order of [5, 2, -1]) {
      const outOfRange = await service.call('PATCH', path, { token, json: { order, name: 'Never' } });
      assert.equal(outOfRange.status, 400, `order ${order}: ${outOfRange.text}`);
      // Fides names the order it refused.
      assert.match(
        outOfRange.body.detail,
        new RegExp(`^Cannot set order to ${order}: there are only 2 pre_execution webhook\\(s\\)`),
      );
    }
    const unknownField = await service.call('PATCH', path, { token, json: { key: 'renamed_key' } });
    assert.equal(unknownField.status, 422);
    const afterRefusals = await service.call('GET', path, { token });
    assert.deepEqual([afterRefusals.body.name, afterRefusals.body.order], ['Moved', 1]);

    // Lethe's path keeps its 422 for the same mistake.
    const lethe = await service.call('PATCH', '/v1/policy/patched/webhook/pre_execution/one', {
      token,
      json: { order: 5 },
    });
    assert.equal(lethe.status, 422);
  });

  it('DELETE answers the new order when others moved up, and [] when the last one went', async () => {
    await newPolicy('trimmed');
    await put('trimmed', 'post_execution', [
      hook('Cache busting', 'one_way', 'cache_busting'),
      hook('Cleanup', 'one_way', 'cleanup'),
    ]);
    const first = await service.call('DELETE', `${BASE}/trimmed/webhook/post_execution/cache_busting`, {
      token,
    });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { new_order: [{ key: 'cleanup', order: 0 }] });
    const last = await service.call('DELETE', `${BASE}/trimmed/webhook/post_execution/cleanup`, { token });
    assert.equal(last.status, 200);
    assert.deepEqual(last.body, { new_order: [] });
    assert.deepEqual(await keysOf('trimmed', 'post_execution'), []);
    const again = await service.call('DELETE', `${BASE}/trimmed/webhook/post_execution/cleanup`, { token });
    assert.equal(again.status, 404);
  });
});
