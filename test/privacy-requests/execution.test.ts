import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { endOfLocalDay, localDayOf, plusDays } from '../helpers/statute-days.ts';
import {
  engineConfig,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('privacy request execution', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true, captureLogs: true });
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('calls pre-execution webhooks in order, then the rules, then post-execution ones, with the exact body and headers', async () => {
    await policyWithWebhooks(
      service,
      receiver,
      'ordered',
      [
        { key: 'pre_a', direction: 'one_way' },
        { key: 'pre_b', direction: 'two_way' },
        { key: 'pre_c', direction: 'one_way' },
      ],
      [
        { key: 'post_a', direction: 'two_way' },
        { key: 'post_b', direction: 'one_way' },
      ],
    );
    const created = await submit(service, {
      policy_key: 'ordered',
      identity: { email: 'ada@example.com', loyalty: { label: 'Loyalty id', value: 'L-1' } },
      external_id: 'ext-1',
    });
    assert.match(created.id, /^pri_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const done = await waitForStatus(service, created.id, 'complete');

    const order = receiver.calls
      .filter((call) => call.body?.privacy_request_id === created.id)
      .map((call) => call.path);
    assert.deepEqual(order, ['/pre_a', '/pre_b', '/pre_c', '/post_a', '/post_b']);

    const [preB] = receiver.callsTo('/pre_b');
    assert.ok(preB);
    assert.equal(preB.headers['content-type'], 'application/json');
    assert.equal(preB.headers.authorization, 'Bearer secret-of-pre_b');
    assert.equal(preB.headers['idempotency-key'], `${created.id}:pre_b:pre`);
    assert.equal(preB.headers['reply-to'], `/privacy-request/${created.id}/resume`);
    assert.match(String(preB.headers['reply-to-token']), /^[\w-]+\.\.[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.deepEqual(Object.keys(preB.body).sort(), [
      'callback_type',
      'direction',
      'identity',
      'policy_action',
      'privacy_request',
      'privacy_request_id',
      'privacy_request_status',
      'timestamp',
    ]);
    assert.equal(preB.body.privacy_request_status, 'in_processing');
    assert.equal(preB.body.privacy_request_id, created.id);
    assert.equal(preB.body.direction, 'two_way');
    assert.equal(preB.body.callback_type, 'pre');
    assert.ok(Math.abs(Date.parse(preB.body.timestamp) - preB.at) < 60_000);
    assert.deepEqual(preB.body.identity, {
      email: 'ada@example.com',
      loyalty: { label: 'Loyalty id', value: 'L-1' },
    });
    assert.equal(preB.body.privacy_request.id, created.id);
    assert.equal(preB.body.privacy_request.status, 'in_processing');
    assert.equal(preB.body.privacy_request.external_id, 'ext-1');
    assert.equal(preB.body.privacy_request.policy.key, 'ordered');
    assert.equal(preB.body.privacy_request.policy.execution_timeframe, 30);
    assert.equal('identity' in preB.body.privacy_request, false);

    const [preA] = receiver.callsTo('/pre_a');
    assert.equal(preA?.headers['reply-to'], undefined, 'one_way calls carry no reply-to');
    assert.equal(preA?.headers['reply-to-token'], undefined);
    assert.equal(preA?.body.direction, 'one_way');
    const [postA] = receiver.callsTo('/post_a');
    assert.equal(postA?.body.callback_type, 'post');
    assert.equal(postA?.headers['reply-to'], undefined, 'post-execution calls carry no reply-to');
    assert.equal(postA?.headers['idempotency-key'], `${created.id}:post_a:post`);

    assert.equal(done.started_processing_at !== null, true);
    assert.equal(done.finished_processing_at !== null, true);
    // The policy's 30 days without a jurisdiction: UTC days, to the end of the last one.
    const due = endOfLocalDay(plusDays(localDayOf(new Date(done.requested_at), 'UTC'), 30), 'UTC');
    assert.equal(done.due_date, due.toISOString());
    assert.ok(done.days_left === 29 || done.days_left === 30);

    const log = await logOf(service, created.id);
    const transitions = log
      .filter((entry) => entry.kind === 'transition')
      .map((entry) => `${entry.from_status}>${entry.to_status}`);
    assert.deepEqual(transitions, [
      'null>pending',
      'pending>approved',
      'approved>in_processing',
      'in_processing>complete',
    ]);
    const webhookEntries = log.filter((entry) => entry.kind === 'webhook');
    assert.deepEqual(
      webhookEntries.map(
        (entry) => `${entry.timing}:${entry.webhook_key}:${entry.http_status}:${entry.attempt}`,
      ),
      ['pre:pre_a:200:1', 'pre:pre_b:200:1', 'pre:pre_c:200:1', 'post:post_a:200:1', 'post:post_b:200:1'],
    );
    const [firstCall] = webhookEntries;
    assert.equal(firstCall.target_host, new URL(receiver.url).host);
    assert.equal(typeof firstCall.duration_ms, 'number');
    assert.equal(
      log.some((entry) => entry.kind === 'rules'),
      true,
    );
    const logText = JSON.stringify(log);
    assert.equal(logText.includes('secret-of'), false);
    assert.equal(logText.includes('ada@example.com'), false);

    const processLog = service.logLines.join('\n');
    assert.ok(processLog.includes(created.id), 'the service did log this request');
    for (const secret of ['secret-of', 'ada@example.com', String(preB.headers['reply-to-token'])]) {
      assert.equal(processLog.includes(secret), false, 'no secret, identity or token in the process log');
    }
  });

  it('receives a batch in one go: each request in submission order, logged, planned and run to completion', async () => {
    await policyWithWebhooks(service, receiver, 'batched', [{ key: 'batch_pre', direction: 'two_way' }]);
    const items = Array.from({ length: 5 }, (_, index) => ({
      policy_key: 'batched',
      identity: { email: `batch${index}@example.com` },
      external_id: `batch-${index}`,
    }));
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: await service.rootToken(),
      json: [
        items[0],
        items[1],
        { policy_key: 'no_such_policy', identity: { email: 'x@example.com' } },
        ...items.slice(2),
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.failed.map((failure: { message: string }) => failure.message),
      ['No policy with key no_such_policy.'],
    );
    const created = answer.body.succeeded;
    assert.deepEqual(
      created.map((request: { external_id: string }) => request.external_id),
      items.map((item) => item.external_id),
    );
    assert.deepEqual(created[3].identity, { email: 'batch3@example.com' });
    const listed = await service.call('GET', '/v1/privacy-request?size=5', {
      token: await service.rootToken(),
    });
    assert.deepEqual(
      listed.body.items.map((request: { external_id: string }) => request.external_id),
      items.map((item) => item.external_id).reverse(),
      'newest first: the last item of the batch first',
    );
    for (const request of created) {
      await waitForStatus(service, request.id, 'complete');
      const log = await logOf(service, request.id);
      assert.deepEqual(
        log.map((entry) => `${entry.kind}:${entry.from_status}>${entry.to_status}:${entry.webhook_key}`),
        [
          'transition:null>pending:null',
          'transition:pending>approved:null',
          'transition:approved>in_processing:null',
          'webhook:null>null:batch_pre',
          'rules:null>null:null',
          'transition:in_processing>complete:null',
        ],
      );
      assert.deepEqual(log[1].details, { plan: ['pre:batch_pre', 'rules'] });
      const calls = receiver
        .callsTo('/batch_pre')
        .filter((call) => call.body.privacy_request_id === request.id);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]?.body.identity.email, request.identity.email);
    }
  });
});
