import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { seal } from '../../src/crypto/secret-box.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type Answer,
  engineConfig,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('failing webhooks', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService({ ...engineConfig, webhookTimeoutMs: 4000 }, { worker: true });
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const failures: [string, Answer, RegExp][] = [
    ['server_error', { status: 500 }, /answered HTTP 500/],
    ['not_json', { body: 'this is not json', headers: { 'content-type': 'application/json' } }, /not JSON/],
    ['wrong_shape', { body: { halt: 'yes' } }, /halt must be true or false/],
    ['unknown_field', { body: { status: 'ok' } }, /status is not an accepted field/],
    ['bad_identity', { body: { derived_identity: { email: 'nope' } } }, /email must be an email address/],
    ['slow', { delayMs: 8000 }, /no answer within 4000 ms/],
    ['huge', { body: 'x'.repeat(1024 * 1024 + 10) }, /larger than 1048576 bytes/],
    ['redirect', { status: 302, headers: { location: '/elsewhere' } }, /redirect \(302\)/],
  ];

  for (const [name, answer, reason] of failures) {
    it(`puts the request in error when a two_way webhook fails: ${name}`, async () => {
      receiver.on(`/${name}`, () => answer);
      await policyWithWebhooks(
        service,
        receiver,
        `fails_${name}`,
        [
          { key: name, direction: 'two_way' },
          { key: `after_${name}`, direction: 'one_way' },
        ],
        [],
      );
      const created = await submit(service, {
        policy_key: `fails_${name}`,
        identity: { email: 'e@example.com' },
      });
      await waitForStatus(service, created.id, 'error');
      assert.equal(receiver.callsTo(`/after_${name}`).length, 0, 'nothing runs after the failure');
      assert.equal(receiver.callsTo('/elsewhere').length, 0, 'redirects are not followed');
      const log = await logOf(service, created.id);
      const toError = log.find((entry) => entry.to_status === 'error');
      assert.match(toError.error, reason);
      const call = log.find((entry) => entry.kind === 'webhook' && entry.webhook_key === name);
      assert.match(call.error, reason);
      assert.equal(call.attempt, 1, 'two_way calls are not retried');
    });
  }

  it('retries a request in error from the webhook that failed', async () => {
    let healthy = false;
    receiver.on('/flaky', () => (healthy ? { body: {} } : { status: 503 }));
    await policyWithWebhooks(
      service,
      receiver,
      'retried',
      [
        { key: 'first', direction: 'one_way' },
        { key: 'flaky', direction: 'two_way' },
      ],
      [{ key: 'last', direction: 'one_way' }],
    );
    const created = await submit(service, { policy_key: 'retried', identity: { email: 'r@example.com' } });
    const failed = await waitForStatus(service, created.id, 'error');
    const token = await service.rootToken();

    const approveInError = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [created.id] },
    });
    assert.equal(approveInError.status, 400);
    assert.match(approveInError.body.detail, /cannot approve a request in status error/);

    healthy = true;
    const retried = await service.call('POST', `/v1/privacy-request/${created.id}/retry`, { token });
    assert.equal(retried.status, 200, retried.text);
    await waitForStatus(service, created.id, 'complete');
    const forThis = (path: string) =>
      receiver.callsTo(path).filter((call) => call.body.privacy_request_id === created.id);
    assert.equal(forThis('/first').length, 1, 'confirmed steps are not repeated');
    assert.equal(forThis('/flaky').length, 2);
    assert.equal(forThis('/last').length, 1);
    assert.ok(
      Date.parse(failed.finished_processing_at) >= Date.parse(failed.started_processing_at),
      'a request in error is finished processing',
    );

    const again = await service.call('POST', `/v1/privacy-request/${created.id}/retry`, { token });
    assert.equal(again.status, 400);
    assert.equal(again.body.detail, 'cannot retry a request in status complete');
  });

  it('tries a failing one_way webhook three times with backoff, logs it and goes on', async () => {
    let calls = 0;
    receiver.on('/unreliable', () => {
      calls += 1;
      return { status: 502 };
    });
    receiver.on('/rejecting', () => ({ status: 404 }));
    await policyWithWebhooks(
      service,
      receiver,
      'one_way_failures',
      [
        { key: 'unreliable', direction: 'one_way' },
        { key: 'rejecting', direction: 'one_way' },
      ],
      [{ key: 'notified', direction: 'one_way' }],
    );
    const created = await submit(service, {
      policy_key: 'one_way_failures',
      identity: { email: 'o@example.com' },
    });
    await waitForStatus(service, created.id, 'complete');
    assert.equal(calls, 3);
    const unreliable = receiver.callsTo('/unreliable');
    assert.ok((unreliable[2]?.at ?? 0) >= (unreliable[1]?.at ?? 0));
    assert.equal(
      new Set(unreliable.map((call) => call.headers['idempotency-key'])).size,
      1,
      'every try carries the same Idempotency-Key',
    );
    assert.equal(receiver.callsTo('/rejecting').length, 1, 'a 4xx is not retried');
    assert.equal(receiver.callsTo('/notified').length, 1);
    const log = await logOf(service, created.id);
    assert.deepEqual(
      log
        .filter((entry) => entry.webhook_key === 'unreliable' && entry.kind === 'webhook')
        .map((entry) => `${entry.attempt}:${entry.http_status}`),
      ['1:502', '2:502', '3:502'],
    );
    assert.ok(log.some((entry) => /failed after 3 tries; the request goes on/.test(entry.message ?? '')));
  });

  it('puts the request in error when the stored authorization secret cannot be opened', async () => {
    await policyWithWebhooks(service, receiver, 'unreadable', [{ key: 'sealed_hook', direction: 'one_way' }]);
    // A secret sealed under another key (as after changing LETHE_ENCRYPTION_KEY): a valid box that will not open.
    await service.services.db.query(
      `UPDATE connections SET secrets_authorization_sealed = $1 WHERE key = 'unreadable_sealed_hook'`,
      [seal(randomBytes(32), 'Bearer lost', 'connection:unreadable_sealed_hook:authorization')],
    );
    const created = await submit(service, { policy_key: 'unreadable', identity: { email: 'u@example.com' } });
    await waitForStatus(service, created.id, 'error');
    assert.equal(receiver.callsTo('/sealed_hook').length, 0);
    const log = await logOf(service, created.id);
    assert.match(
      log.find((entry) => entry.to_status === 'error').error,
      /authorization secret of connection unreadable_sealed_hook cannot be opened/,
    );
  });

  it('refuses to call an internal address that is not allowed', async () => {
    const guarded = await startTestService({ ...engineConfig, webhookAllowedHosts: [] }, { worker: true });
    try {
      const token = await guarded.rootToken();
      await guarded.call('PATCH', '/v1/dsr/policy', { token, json: [{ name: 'p', key: 'guarded' }] });
      await guarded.call('PATCH', '/v1/connection', {
        token,
        json: [{ name: 'c', key: 'internal', connection_type: 'https', access: 'read' }],
      });
      // Saved while the host was allowed is impossible here, so write the URL as an operator would have
      // before the allow-list changed: directly in the store.
      await guarded.services.db.query(`UPDATE connections SET secrets_url = $1 WHERE key = 'internal'`, [
        `${receiver.url}/internal`,
      ]);
      await guarded.call('PUT', '/v1/policy/guarded/webhook/pre_execution', {
        token,
        json: [{ connection_config_key: 'internal', direction: 'two_way', key: 'internal', name: 'i' }],
      });
      const created = await submit(guarded, { policy_key: 'guarded', identity: { email: 'g@example.com' } });
      await waitForStatus(guarded, created.id, 'error');
      const log = await logOf(guarded, created.id);
      assert.match(log.find((entry) => entry.to_status === 'error').error, /internal address 127\.0\.0\.1/);
      assert.equal(receiver.callsTo('/internal').length, 0);
    } finally {
      await guarded.stop();
    }
  });
});
