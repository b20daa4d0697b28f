// The event-subscription API (docs/events.md): a subscription is created with a signing secret shown
// once, in the Standard Webhooks form that the reference library accepts; answers mask the URL and never
// show the secret; a rotation makes a new one; bad input (an unknown event, a refused host, an unknown
// format) is a 422 naming it and stores nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('event subscriptions', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({ allowInsecureWebhooks: false, webhookAllowedHosts: [] });
    token = await service.rootToken();
  });
  after(() => service.stop());

  const body = {
    url: 'https://hooks.example.com/services/T000/B000/token-part',
    events: ['privacy_request.received', 'privacy_request.completed'],
    format: 'slack',
  };

  it('creates with a secret shown once, in the Standard Webhooks form', async () => {
    const created = await service.call('PUT', '/v1/event-subscription/chat', { token, json: body });
    assert.equal(created.status, 201, created.text);
    const secret = created.body.secret as string;
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
    // The reference library takes it as it is and verifies what it signs.
    const webhook = new Webhook(secret);
    // The library refuses a signature more than five minutes from its own clock: it must be signed now.
    // eslint-disable-next-line no-restricted-syntax -- a signing time, not a calendar expectation
    const at = new Date();
    const signature = webhook.sign('msg_1', at, '{"a":1}');
    webhook.verify('{"a":1}', {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    });
    assert.equal(created.body.url, 'https://hooks.example.com/***');
    assert.deepEqual(created.body.events, body.events);
    assert.equal(created.body.enabled, true);

    const read = await service.call('GET', '/v1/event-subscription/chat', { token });
    assert.equal(read.status, 200);
    assert.equal(read.body.secret, undefined);
    assert.equal(read.body.url, 'https://hooks.example.com/***');
    assert.ok(!read.text.includes('token-part'));
    const list = await service.call('GET', '/v1/event-subscription', { token });
    assert.equal(list.body.total, 1);
    assert.ok(!list.text.includes(secret.slice(6)));

    const stored = await service.services.db.query<{ secret_sealed: Buffer }>(
      'SELECT secret_sealed FROM event_subscriptions WHERE key = $1',
      ['chat'],
    );
    assert.ok(!stored.rows[0]?.secret_sealed.toString('latin1').includes(secret.slice(6)));
  });

  it('updates without a new secret; the masked URL sent back keeps the stored one', async () => {
    const updated = await service.call('PUT', '/v1/event-subscription/chat', {
      token,
      json: { ...body, url: 'https://hooks.example.com/***', events: ['task.created'], enabled: false },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.secret, undefined);
    assert.deepEqual(updated.body.events, ['task.created']);
    assert.equal(updated.body.enabled, false);
    const { rows } = await service.services.db.query<{ url: string }>(
      'SELECT url FROM event_subscriptions WHERE key = $1',
      ['chat'],
    );
    assert.equal(rows[0]?.url, body.url);
  });

  it('rotates the secret: a new one, shown once', async () => {
    const before = await service.services.db.query<{ secret_sealed: Buffer }>(
      'SELECT secret_sealed FROM event_subscriptions WHERE key = $1',
      ['chat'],
    );
    const rotated = await service.call('POST', '/v1/event-subscription/chat/rotate-secret', { token });
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.body.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const after = await service.services.db.query<{ secret_sealed: Buffer }>(
      'SELECT secret_sealed FROM event_subscriptions WHERE key = $1',
      ['chat'],
    );
    assert.notDeepEqual(after.rows[0]?.secret_sealed, before.rows[0]?.secret_sealed);
    const missing = await service.call('POST', '/v1/event-subscription/nope/rotate-secret', { token });
    assert.equal(missing.status, 404);
  });

  for (const [what, change, named] of [
    [
      'an unknown event',
      { events: ['privacy_request.received', 'privacy_request.exploded'] },
      /privacy_request\.exploded/,
    ],
    ['a refused host', { url: 'https://127.0.0.1/hook' }, /internal address 127\.0\.0\.1/],
    ['a plain http URL', { url: 'http://hooks.example.com/x' }, /must use https/],
    ['an unknown format', { format: 'pager' }, /format.*"pager"/],
  ] as const) {
    it(`refuses ${what} with a 422 naming it, storing nothing`, async () => {
      const answer = await service.call('PUT', '/v1/event-subscription/refused', {
        token,
        json: { ...body, ...change },
      });
      assert.equal(answer.status, 422, answer.text);
      assert.match(answer.body.detail, named);
      const read = await service.call('GET', '/v1/event-subscription/refused', { token });
      assert.equal(read.status, 404);
      // An existing subscription is not changed by a refused update either.
      const update = await service.call('PUT', '/v1/event-subscription/chat', {
        token,
        json: { ...body, ...change },
      });
      assert.equal(update.status, 422);
      const chat = await service.call('GET', '/v1/event-subscription/chat', { token });
      assert.deepEqual(chat.body.events, ['task.created']);
    });
  }

  it('audits the changes without the secret or the URL, and deletes', async () => {
    const deleted = await service.call('DELETE', '/v1/event-subscription/chat', { token });
    assert.equal(deleted.status, 204);
    assert.equal((await service.call('GET', '/v1/event-subscription/chat', { token })).status, 404);
    const audit = await service.call('GET', '/v1/audit-log?action=event-subscription', { token });
    assert.equal(audit.status, 200, audit.text);
    const actions = audit.body.items.map((entry: { action: string }) => entry.action);
    for (const action of [
      'event-subscription.create',
      'event-subscription.update',
      'event-subscription.secret.rotate',
      'event-subscription.delete',
    ])
      assert.ok(actions.includes(action), `${action} in ${actions.join(', ')}`);
    assert.ok(!audit.text.includes('token-part'));
    assert.ok(!audit.text.includes('whsec_'));
  });
});
