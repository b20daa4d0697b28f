// Fides' pre-approval webhook paths under /api/v1 (page, single GET, PATCH, DELETE answering null) and
// the single-webhook routes Lethe's own path gained with them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConnection, scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const BASE = '/api/v1/dsr/webhook/pre_approval';

describe('Fides pre-approval webhook paths', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    await createConnection(service, 'screening', 'Screening service');
    await createConnection(service, 'backup', 'Backup service');
  });
  after(async () => service.stop());

  const put = (body: unknown) => service.call('PUT', BASE, { token, json: body });
  const keys = async () => {
    const page = await service.call('GET', BASE, { token });
    assert.equal(page.status, 200, page.text);
    return (page.body.items as { key: string }[]).map((item) => item.key);
  };

  it('replaces the list, deriving missing keys from names, and answers pages and single webhooks', async () => {
    const created = await put([
      { connection_config_key: 'screening', name: 'My webhook', key: 'my_webhook' },
      { connection_config_key: 'screening', name: 'My New Pre-Approval Webhook' },
    ]);
    assert.equal(created.status, 200, created.text);
    assert.deepEqual(
      created.body.map((item: { key: string; name: string }) => [item.key, item.name]),
      [
        ['my_webhook', 'My webhook'],
        ['my_new_pre_approval_webhook', 'My New Pre-Approval Webhook'],
      ],
    );
    assert.deepEqual(Object.keys(created.body[0]).sort(), ['connection_config', 'key', 'name']);
    assert.equal(created.body[0].connection_config.key, 'screening');
    assert.equal(created.body[0].connection_config.secrets, null);

    const page = await service.call('GET', BASE, { token });
    assert.deepEqual([page.body.total, page.body.page, page.body.size, page.body.pages], [2, 1, 50, 1]);
    const single = await service.call('GET', `${BASE}/my_webhook`, { token });
    assert.equal(single.status, 200);
    assert.deepEqual(single.body, page.body.items[0]);
    assert.equal((await service.call('GET', `${BASE}/nope`, { token })).status, 404);

    // Lethe's path still answers its array with order and connection_config_key.
    const lethe = await service.call('GET', '/v1/pre_approval_webhook', { token });
    assert.deepEqual(
      lethe.body.map((item: { key: string; order: number }) => `${item.key}:${item.order}`),
      ['my_webhook:0', 'my_new_pre_approval_webhook:1'],
    );
  });

  it('refuses duplicates with 400 and unknown connections with 404, changing nothing', async () => {
    assert.equal(
      (await put([{ connection_config_key: 'screening', name: 'Only', key: 'only' }])).status,
      200,
    );
    const same = { connection_config_key: 'screening', name: 'My webhook', key: 'my_webhook' };
    const duplicate = await put([same, same]);
    assert.equal(duplicate.status, 400);
    assert.match(duplicate.body.detail, /resolve to the same value/);
    const nameGivesSameKey = await put([same, { connection_config_key: 'screening', name: 'My webhook' }]);
    assert.equal(nameGivesSameKey.status, 400);
    const unknown = await put([same, { connection_config_key: 'unknown_connection_key', name: 'Lost' }]);
    assert.equal(unknown.status, 404);
    assert.deepEqual(await keys(), ['only']);
  });

  it('PATCH renames or moves a webhook to another connection; unknown webhook or connection is 404', async () => {
    await put([
      { connection_config_key: 'screening', name: 'Pre-approval webhook', key: 'pre_approval_webhook' },
      { connection_config_key: 'screening', name: 'Second', key: 'pre_approval_webhook_2' },
    ]);
    const renamed = await service.call('PATCH', `${BASE}/pre_approval_webhook`, {
      token,
      json: { name: 'Renaming this webhook' },
    });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual(
      [renamed.body.key, renamed.body.name],
      ['pre_approval_webhook', 'Renaming this webhook'],
    );
    const moved = await service.call('PATCH', `${BASE}/pre_approval_webhook`, {
      token,
      json: { connection_config_key: 'backup' },
    });
    assert.equal(moved.body.connection_config.key, 'backup');
    const missingConnection = await service.call('PATCH', `${BASE}/pre_approval_webhook`, {
      token,
      json: { connection_config_key: 'nonexistent_key' },
    });
    assert.equal(missingConnection.status, 404);
    const missingWebhook = await service.call('PATCH', `${BASE}/invalid_webhook_key`, {
      token,
      json: { name: 'Renaming this webhook' },
    });
    assert.equal(missingWebhook.status, 404);
    const reader = await scopedToken(service, ['webhook:read']);
    const forbidden = await service.call('PATCH', `${BASE}/pre_approval_webhook`, {
      token: reader,
      json: { name: 'Not allowed' },
    });
    assert.equal(forbidden.status, 403);
    assert.equal((await service.call('PATCH', `${BASE}/pre_approval_webhook`, { json: {} })).status, 401);
    // Lethe's own path: the same change, `{}` refused with 422.
    const letheEmpty = await service.call('PATCH', '/v1/pre_approval_webhook/pre_approval_webhook', {
      token,
      json: {},
    });
    assert.equal(letheEmpty.status, 422);
    const letheRenamed = await service.call('PATCH', '/v1/pre_approval_webhook/pre_approval_webhook_2', {
      token,
      json: { name: 'Second, renamed' },
    });
    assert.equal(letheRenamed.status, 200, letheRenamed.text);
    assert.deepEqual([letheRenamed.body.name, letheRenamed.body.order], ['Second, renamed', 1]);
    const stored = await service.call('GET', '/v1/pre_approval_webhook/pre_approval_webhook', { token });
    assert.deepEqual(
      [stored.body.name, stored.body.connection_config_key, stored.body.order],
      ['Renaming this webhook', 'backup', 0],
    );
  });

  it('DELETE answers 200 with null and keeps the other webhooks in order', async () => {
    await put([
      { connection_config_key: 'screening', name: 'First', key: 'first' },
      { connection_config_key: 'screening', name: 'Second', key: 'second' },
      { connection_config_key: 'screening', name: 'Third', key: 'third' },
    ]);
    const removed = await service.call('DELETE', `${BASE}/first`, { token });
    assert.equal(removed.status, 200);
    assert.equal(removed.body, null);
    assert.deepEqual(await keys(), ['second', 'third']);
    assert.equal((await service.call('DELETE', `${BASE}/first`, { token })).status, 404);

    // Lethe's own single-webhook DELETE answers the new order.
    const lethe = await service.call('DELETE', '/v1/pre_approval_webhook/second', { token });
    assert.equal(lethe.status, 200);
    assert.deepEqual(lethe.body, { new_order: [{ key: 'third', order: 0 }] });
  });
});
