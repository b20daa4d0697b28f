import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createConnection, read, scopedToken } from '../connections/support.ts';

type Listed = { key: string; order: number };

describe('policy webhooks', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    await createConnection(service, 'hook_a', 'Hook A');
    await createConnection(service, 'hook_b', 'Hook B');
  });
  after(() => service.stop());

  const hook = (key: string, connection = 'hook_a', direction = 'one_way') => ({
    connection_config_key: connection,
    direction,
    key,
    name: `Webhook ${key}`,
  });
  const newPolicy = async (key: string) => {
    const answer = await service.call('PATCH', '/v1/dsr/policy', { token, json: [{ name: key, key }] });
    assert.deepEqual(answer.body.failed, []);
  };
  const put = (policy: string, segment: string, json: unknown) =>
    service.call('PUT', `/v1/policy/${policy}/webhook/${segment}`, { token, json });
  const patch = (policy: string, segment: string, key: string, json: unknown) =>
    service.call('PATCH', `/v1/policy/${policy}/webhook/${segment}/${key}`, { token, json });
  const orderOf = (list: Listed[]) => list.map((webhook) => `${webhook.key}:${webhook.order}`);
  const listed = (policy: string, segment = 'pre_execution') =>
    read(service, `/v1/policy/${policy}/webhook/${segment}`);

  it('replaces the list in body order and answers it with orders 0..n-1', async () => {
    await newPolicy('ordered');
    const answer = await put('ordered', 'pre_execution', [
      hook('first'),
      hook('second', 'hook_b', 'two_way'),
      hook('third'),
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(orderOf(answer.body), ['first:0', 'second:1', 'third:2']);
    assert.deepEqual(answer.body[1], {
      key: 'second',
      name: 'Webhook second',
      direction: 'two_way',
      order: 1,
      connection_config_key: 'hook_b',
      connection_config: { key: 'hook_b', name: 'Hook B', connection_type: 'https', access: 'read' },
    });
    assert.deepEqual(await listed('ordered'), answer.body);
    assert.deepEqual(await listed('ordered', 'pre-execution'), answer.body);
    assert.deepEqual(await read(service, '/v1/policy/ordered/webhook/pre_execution/second'), answer.body[1]);
    assert.deepEqual(await read(service, '/v1/policy/ordered/webhook/pre-execution/second'), answer.body[1]);
    assert.deepEqual(await listed('ordered', 'post_execution'), []);
    assert.equal((await read(service, '/v1/connection/hook_b')).webhooks_using >= 1, true);
  });

  it('keeps a webhook id while its key stays, removes absent keys, and empties with []', async () => {
    await newPolicy('replaced');
    await put('replaced', 'post_execution', [hook('a'), hook('b'), hook('c')]);
    const idOf = async (key: string) => {
      const { rows } = await service.services.db.query<{ id: string }>(
        `SELECT w.id FROM policy_webhooks w JOIN policies p ON p.id = w.policy_id
          WHERE p.key = 'replaced' AND w.timing = 'post' AND w.key = $1`,
        [key],
      );
      return rows[0]?.id;
    };
    const idOfA = await idOf('a');
    const answer = await put('replaced', 'post-execution', [
      hook('c', 'hook_b'),
      hook('a', 'hook_a', 'two_way'),
    ]);
    assert.equal(answer.status, 200);
    assert.deepEqual(orderOf(answer.body), ['c:0', 'a:1']);
    assert.equal(answer.body[1].direction, 'two_way');
    assert.equal(answer.body[0].connection_config_key, 'hook_b');
    assert.equal(await idOf('a'), idOfA);
    assert.equal(await idOf('b'), undefined);
    assert.deepEqual(await listed('replaced'), [], 'pre list untouched by a post PUT');

    const emptied = await put('replaced', 'post_execution', []);
    assert.equal(emptied.status, 200);
    assert.deepEqual(emptied.body, []);
    assert.deepEqual(await listed('replaced', 'post_execution'), []);
  });

  it('refuses a bad list with a clear 4xx and changes nothing', async () => {
    await newPolicy('guarded');
    await put('guarded', 'pre_execution', [hook('kept_1'), hook('kept_2', 'hook_b')]);
    const before = await listed('guarded');
    const fiftyOne = Array.from({ length: 51 }, (_, index) => hook(`h${index}`));
    const cases: [unknown, number, RegExp][] = [
      [[hook('x'), { ...hook('y'), direction: 'both_ways' }], 422, /body\.1\.direction/],
      [[{ connection_config_key: 'hook_a', direction: 'one_way', key: 'x' }], 422, /name is required/],
      [[{ ...hook('x'), order: 0 }], 422, /order is not an accepted field/],
      [[{ ...hook('x'), name: 12 }], 422, /body\.0\.name must be string/],
      [[hook('dup'), hook('other'), hook('dup')], 422, /key dup appears more than once/],
      [[hook('x'), hook('y', 'ghost_connection')], 404, /No connection with key ghost_connection/],
      [[hook('x', 'ghost_1'), hook('y', 'ghost_2')], 404, /ghost_1, ghost_2/],
      [fiftyOne, 422, /50/],
      [{ ...hook('x') }, 422, /body must be array/],
      [[hook('bad key')], 422, /key must hold only letters, digits/],
    ];
    for (const [json, status, detail] of cases) {
      const answer = await put('guarded', 'pre_execution', json);
      assert.equal(answer.status, status, JSON.stringify(json).slice(0, 80));
      assert.match(answer.body.detail, detail);
      assert.deepEqual(await listed('guarded'), before);
    }
    const unknownPolicy = await put('no_such_policy', 'pre_execution', [hook('x')]);
    assert.equal(unknownPolicy.status, 404);
    assert.match(unknownPolicy.body.detail, /no_such_policy/);
    assert.equal(
      (await service.call('GET', '/v1/policy/no_such_policy/webhook/pre_execution', { token })).status,
      404,
    );
    const badTiming = await put('guarded', 'during_execution', [hook('x')]);
    assert.equal(badTiming.status, 404);
    assert.deepEqual(await listed('guarded'), before);
  });

  it('moves a webhook with PATCH, shifting the others and keeping the order contiguous', async () => {
    await newPolicy('moving');
    await put('moving', 'pre_execution', [hook('a'), hook('b'), hook('c'), hook('d')]);

    const swap = await patch('moving', 'pre_execution', 'a', { order: 1 });
    assert.equal(swap.status, 200);
    assert.equal(swap.body.resource.key, 'a');
    assert.equal(swap.body.resource.order, 1);
    assert.deepEqual(orderOf(swap.body.new_order), ['b:0', 'a:1', 'c:2', 'd:3']);

    const toFront = await patch('moving', 'pre-execution', 'd', { order: 0 });
    assert.deepEqual(orderOf(toFront.body.new_order), ['d:0', 'b:1', 'a:2', 'c:3']);
    const toEnd = await patch('moving', 'pre_execution', 'd', { order: 3 });
    assert.deepEqual(orderOf(toEnd.body.new_order), ['b:0', 'a:1', 'c:2', 'd:3']);
    const same = await patch('moving', 'pre_execution', 'c', { order: 2 });
    assert.deepEqual(orderOf(same.body.new_order), ['b:0', 'a:1', 'c:2', 'd:3']);
    assert.deepEqual(orderOf(await listed('moving')), ['b:0', 'a:1', 'c:2', 'd:3']);

    const renamed = await patch('moving', 'pre_execution', 'c', {
      name: 'Renamed',
      direction: 'two_way',
      connection_config_key: 'hook_b',
    });
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body.resource, {
      key: 'c',
      name: 'Renamed',
      direction: 'two_way',
      order: 2,
      connection_config_key: 'hook_b',
      connection_config: { key: 'hook_b', name: 'Hook B', connection_type: 'https', access: 'read' },
    });
    assert.deepEqual(orderOf(renamed.body.new_order), ['b:0', 'a:1', 'c:2', 'd:3']);
  });

  it('refuses bad PATCH bodies with a clear 4xx and changes nothing', async () => {
    await newPolicy('patch_guarded');
    await put('patch_guarded', 'post_execution', [hook('a'), hook('b'), hook('c')]);
    const before = await listed('patch_guarded', 'post_execution');
    const cases: [string, unknown, number, RegExp][] = [
      ['a', { order: 3 }, 422, /order must be between 0 and 2/],
      ['a', { order: -1 }, 422, /order must be >= 0/],
      ['a', { order: 1.5 }, 422, /order must be integer/],
      ['a', { order: '1' }, 422, /order must be integer/],
      ['a', {}, 422, /body/],
      ['a', { key: 'renamed' }, 422, /key is not an accepted field/],
      ['a', { direction: 'sideways' }, 422, /direction/],
      ['a', { connection_config_key: 'ghost', order: 2 }, 404, /No connection with key ghost/],
      [
        'ghost_hook',
        { order: 0 },
        404,
        /No post_execution webhook with key ghost_hook on policy patch_guarded/,
      ],
      ['a', [], 422, /body must be object/],
    ];
    for (const [key, json, status, detail] of cases) {
      const answer = await patch('patch_guarded', 'post_execution', key, json);
      assert.equal(answer.status, status, JSON.stringify(json));
      assert.match(answer.body.detail, detail);
    }
    const unknownPolicy = await patch('no_such_policy', 'post_execution', 'a', { order: 0 });
    assert.equal(unknownPolicy.status, 404);
    const wrongTiming = await patch('patch_guarded', 'pre_execution', 'a', { order: 0 });
    assert.equal(wrongTiming.status, 404);
    assert.deepEqual(await listed('patch_guarded', 'post_execution'), before);
  });

  it('deletes a webhook with 200 and the new order, closing the gap', async () => {
    await newPolicy('deleting');
    await put('deleting', 'pre_execution', [hook('a'), hook('b'), hook('c'), hook('d')]);
    const removed = await service.call('DELETE', '/v1/policy/deleting/webhook/pre_execution/b', { token });
    assert.equal(removed.status, 200);
    assert.deepEqual(orderOf(removed.body.new_order), ['a:0', 'c:1', 'd:2']);
    assert.deepEqual(orderOf(await listed('deleting')), ['a:0', 'c:1', 'd:2']);
    const first = await service.call('DELETE', '/v1/policy/deleting/webhook/pre-execution/a', { token });
    assert.equal(first.status, 200);
    assert.deepEqual(orderOf(first.body.new_order), ['c:0', 'd:1']);
    assert.deepEqual(orderOf(await listed('deleting')), ['c:0', 'd:1']);
    const moved = await patch('deleting', 'pre_execution', 'd', { order: 0 });
    assert.deepEqual(orderOf(moved.body.new_order), ['d:0', 'c:1']);

    for (const path of [
      '/v1/policy/deleting/webhook/pre_execution/b',
      '/v1/policy/no_such_policy/webhook/pre_execution/c',
      '/v1/policy/deleting/webhook/post_execution/c',
    ]) {
      assert.equal((await service.call('DELETE', path, { token })).status, 404, path);
      assert.equal((await service.call('GET', path, { token })).status, 404, path);
    }
    assert.deepEqual(orderOf(await listed('deleting')), ['d:0', 'c:1']);
  });

  it('keeps the order contiguous under concurrent moves', async () => {
    await newPolicy('concurrent');
    const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
    await put(
      'concurrent',
      'pre_execution',
      keys.map((key) => hook(key)),
    );
    const answers = await Promise.all(
      keys.flatMap((key, index) => [
        patch('concurrent', 'pre_execution', key, { order: (index * 5) % keys.length }),
        patch('concurrent', 'pre_execution', key, { order: (index * 7 + 3) % keys.length }),
      ]),
    );
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    const final = await listed('concurrent');
    assert.deepEqual(
      final.map((webhook: Listed) => webhook.order),
      [0, 1, 2, 3, 4, 5],
    );
    assert.deepEqual(final.map((webhook: Listed) => webhook.key).sort(), keys);
  });

  it('refuses to delete a connection a webhook uses, naming the webhooks', async () => {
    await createConnection(service, 'busy');
    await newPolicy('busy_policy');
    await put('busy_policy', 'pre_execution', [hook('uses_busy', 'busy')]);
    await put('busy_policy', 'post_execution', [hook('also_busy', 'busy')]);
    assert.equal((await read(service, '/v1/connection/busy')).webhooks_using, 2);
    const refused = await service.call('DELETE', '/v1/connection/busy', { token });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /busy_policy\/pre_execution\/uses_busy/);
    assert.match(refused.body.detail, /busy_policy\/post_execution\/also_busy/);
    assert.equal((await read(service, '/v1/connection/busy')).key, 'busy');

    await put('busy_policy', 'pre_execution', []);
    await service.call('DELETE', '/v1/policy/busy_policy/webhook/post_execution/also_busy', { token });
    assert.equal((await read(service, '/v1/connection/busy')).webhooks_using, 0);
    assert.equal((await service.call('DELETE', '/v1/connection/busy', { token })).status, 204);
  });

  it('requires a token and the webhook scopes', async () => {
    await newPolicy('scoped');
    await put('scoped', 'pre_execution', [hook('a'), hook('b')]);
    const before = await listed('scoped');
    const reader = await scopedToken(service, ['webhook:read']);
    const unrelated = await scopedToken(service, ['policy:create_or_update', 'connection:create_or_update']);
    const writer = await scopedToken(service, ['webhook:create_or_update']);

    assert.equal((await service.call('GET', '/v1/policy/scoped/webhook/pre_execution')).status, 401);
    for (const path of [
      '/v1/policy/scoped/webhook/pre_execution',
      '/v1/policy/scoped/webhook/pre_execution/a',
    ]) {
      assert.equal((await service.call('GET', path, { token: reader })).status, 200);
      assert.equal((await service.call('GET', path, { token: unrelated })).status, 403);
      assert.equal((await service.call('GET', path, { token: writer })).status, 403);
    }
    const writes: [string, string, unknown][] = [
      ['PUT', '/v1/policy/scoped/webhook/pre_execution', [hook('z')]],
      ['PATCH', '/v1/policy/scoped/webhook/pre_execution/a', { order: 1 }],
      ['DELETE', '/v1/policy/scoped/webhook/pre_execution/a', undefined],
    ];
    for (const [method, path, json] of writes) {
      assert.equal((await service.call(method, path, { token: reader, json })).status, 403);
      assert.equal((await service.call(method, path, { token: unrelated, json })).status, 403);
    }
    assert.deepEqual(await listed('scoped'), before);
    const moved = await service.call('PATCH', '/v1/policy/scoped/webhook/pre_execution/a', {
      token: writer,
      json: { order: 1 },
    });
    assert.equal(moved.status, 200);
  });

  it('answers under /v1, /api/v1 and bare, with both spellings', async () => {
    await newPolicy('everywhere');
    await put('everywhere', 'post_execution', [hook('a')]);
    for (const prefix of ['/v1', '/api/v1', '']) {
      for (const segment of ['post_execution', 'post-execution']) {
        const list = await service.call('GET', `${prefix}/policy/everywhere/webhook/${segment}`, { token });
        assert.equal(list.status, 200, `${prefix} ${segment}`);
        assert.deepEqual(orderOf(list.body), ['a:0']);
      }
    }
    const bare = await service.call('PUT', '/policy/everywhere/webhook/post-execution', {
      token,
      json: [hook('b'), hook('a')],
    });
    assert.equal(bare.status, 200);
    assert.deepEqual(orderOf(await listed('everywhere', 'post_execution')), ['b:0', 'a:1']);
  });
  it('documents the Area A routes in /openapi.json and hides the aliases', async () => {
    const document = await service.call('GET', '/openapi.json');
    assert.equal(document.status, 200);
    const paths = Object.keys(document.body.paths);
    for (const path of [
      '/v1/connection',
      '/v1/connection/{connection_key}',
      '/v1/connection/{connection_key}/oauth',
      '/v1/dsr/policy',
      '/v1/dsr/policy/{policy_key}',
      '/v1/dsr/policy/{policy_key}/rule',
      '/v1/policy/{policy_key}/webhook/pre_execution',
      '/v1/policy/{policy_key}/webhook/pre_execution/{webhook_key}',
      '/v1/policy/{policy_key}/webhook/post_execution',
      '/v1/policy/{policy_key}/webhook/post_execution/{webhook_key}',
      '/v1/pre_approval_webhook',
    ]) {
      assert.ok(paths.includes(path), path);
    }
    assert.ok(
      !paths.some((path: string) => path.includes('-execution') || path.startsWith('/api/v1/policy')),
    );
    // Under /api/v1 the document lists only Fides' own paths (src/fides-compat), not the aliases.
    assert.deepEqual(
      paths.filter((path: string) => path.startsWith('/api/v1/connection')),
      ['/api/v1/connection/{connection_key}/secret'],
    );
    const bulk = document.body.paths['/v1/connection'].patch;
    const body = bulk.requestBody.content['application/json'].schema;
    assert.deepEqual(Object.keys(body.items.properties), [
      'name',
      'key',
      'connection_type',
      'access',
      'description',
    ]);
    assert.deepEqual(body.items.required, ['name', 'key', 'connection_type', 'access']);
    assert.ok(bulk.responses['200']);
    assert.ok(document.body.paths['/v1/connection/{connection_key}'].delete.responses['409']);
  });
});

describe('pre-approval webhooks', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    await createConnection(service, 'approver');
    await createConnection(service, 'second_approver');
  });
  after(() => service.stop());

  const put = (json: unknown) => service.call('PUT', '/v1/pre_approval_webhook', { token, json });
  const item = (key: string, connection = 'approver') => ({
    connection_config_key: connection,
    key,
    name: `Approval ${key}`,
  });

  it('starts empty, replaces the list in body order and answers it', async () => {
    assert.deepEqual(await read(service, '/v1/pre_approval_webhook'), []);
    const answer = await put([item('eligibility'), item('fraud', 'second_approver')]);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, [
      {
        key: 'eligibility',
        name: 'Approval eligibility',
        order: 0,
        connection_config_key: 'approver',
        connection_config: {
          key: 'approver',
          name: 'Connection approver',
          connection_type: 'https',
          access: 'read',
        },
      },
      {
        key: 'fraud',
        name: 'Approval fraud',
        order: 1,
        connection_config_key: 'second_approver',
        connection_config: {
          key: 'second_approver',
          name: 'Connection second_approver',
          connection_type: 'https',
          access: 'read',
        },
      },
    ]);
    assert.deepEqual(await read(service, '/v1/pre_approval_webhook'), answer.body);
    const reordered = await put([item('fraud', 'second_approver'), item('new_check')]);
    assert.deepEqual(
      reordered.body.map((webhook: Listed) => `${webhook.key}:${webhook.order}`),
      ['fraud:0', 'new_check:1'],
    );
    assert.deepEqual(await read(service, '/pre_approval_webhook'), reordered.body);
  });

  it('refuses a bad list with a clear 4xx and changes nothing', async () => {
    await put([item('kept')]);
    const before = await read(service, '/v1/pre_approval_webhook');
    const cases: [unknown, number, RegExp][] = [
      [[{ ...item('x'), direction: 'one_way' }], 422, /direction is not an accepted field/],
      [[{ key: 'x', name: 'X' }], 422, /connection_config_key is required/],
      [[{ ...item('x'), key: 5 }], 422, /key must be string/],
      [[item('x'), item('x')], 422, /key x appears more than once/],
      [[item('x', 'ghost')], 404, /No connection with key ghost/],
      [Array.from({ length: 51 }, (_, index) => item(`p${index}`)), 422, /50/],
      [item('x'), 422, /body must be array/],
    ];
    for (const [json, status, detail] of cases) {
      const answer = await put(json);
      assert.equal(answer.status, status, JSON.stringify(json).slice(0, 80));
      assert.match(answer.body.detail, detail);
    }
    assert.deepEqual(await read(service, '/v1/pre_approval_webhook'), before);

    const refused = await service.call('DELETE', '/v1/connection/approver', { token });
    assert.equal(refused.status, 409);
    assert.match(refused.body.detail, /pre_approval\/kept/);
  });

  it('requires a token and the webhook scopes', async () => {
    const before = await read(service, '/v1/pre_approval_webhook');
    const reader = await scopedToken(service, ['webhook:read']);
    const unrelated = await scopedToken(service, ['connection:read', 'policy:create_or_update']);
    assert.equal((await service.call('GET', '/v1/pre_approval_webhook')).status, 401);
    assert.equal((await service.call('GET', '/v1/pre_approval_webhook', { token: reader })).status, 200);
    assert.equal((await service.call('GET', '/v1/pre_approval_webhook', { token: unrelated })).status, 403);
    for (const caller of [reader, unrelated]) {
      const answer = await service.call('PUT', '/v1/pre_approval_webhook', { token: caller, json: [] });
      assert.equal(answer.status, 403);
    }
    assert.deepEqual(await read(service, '/v1/pre_approval_webhook'), before);
  });
});
