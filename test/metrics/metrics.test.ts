// GET /metrics after real traffic (management calls, a privacy request run by the worker through real
// webhook receivers), read with a Prometheus text parser; who may scrape it (loopback, the token, other
// addresses); and the deadline buckets the alert rules use.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';
import { family, sampleValue, scrape } from './support.ts';

const STATUSES = [
  'identity_unverified',
  'requires_input',
  'pending',
  'approved',
  'denied',
  'in_processing',
  'paused',
  'complete',
  'canceled',
  'error',
];

describe('GET /metrics after real traffic', () => {
  let service: TestService;
  let receiver: Receiver;
  let requestId: string;

  before(async () => {
    receiver = await startReceiver();
    receiver.on('/failing', () => ({ status: 500, body: 'down' }));
    service = await startTestService(engineConfig, { worker: true });
    await policyWithWebhooks(
      service,
      receiver,
      'metrics_policy',
      [{ key: 'notify', direction: 'one_way' }],
      [{ key: 'failing', direction: 'one_way' }],
    );
    const request = await submit(service, {
      policy_key: 'metrics_policy',
      identity: { email: 'metrics-subject@example.com' },
    });
    requestId = request.id;
    await waitForStatus(service, requestId, 'complete');
    assert.equal((await service.call('GET', `/no/such/route/${requestId}`)).status, 404);
  });

  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it('labels request durations by method, route pattern and status, never by the raw URL', async () => {
    const scraped = await scrape(service);
    assert.ok(scraped.histograms.has('lethe_http_request_duration_seconds'));
    const count = (labels: Record<string, string>) =>
      sampleValue(scraped, 'lethe_http_request_duration_seconds_count', labels);
    const byRoute = { method: 'GET', route: '/v1/privacy-request/:id', status_code: '200' };
    assert.ok(count(byRoute) >= 1, 'GET /v1/privacy-request/:id 200 is measured');
    assert.equal(
      sampleValue(scraped, 'lethe_http_request_duration_seconds_bucket', { ...byRoute, le: '+Inf' }),
      count(byRoute),
    );
    assert.ok(
      count({ method: 'GET', route: 'unmatched', status_code: '404' }) >= 1,
      'a request no route matched is measured as route "unmatched"',
    );
    assert.equal(scraped.text.includes(requestId), false, 'no request id appears in any label');
    assert.equal(scraped.text.includes('metrics-subject'), false, 'no identity appears');
  });

  it('counts privacy requests by status, every status present', async () => {
    const scraped = await scrape(service);
    const statuses = family(scraped, 'lethe_privacy_requests').metrics.map((metric) => metric.labels?.status);
    assert.deepEqual([...statuses].sort(), [...STATUSES].sort());
    assert.equal(sampleValue(scraped, 'lethe_privacy_requests', { status: 'complete' }), 1);
    assert.equal(sampleValue(scraped, 'lethe_privacy_requests', { status: 'pending' }), 0);
  });

  it('measures webhook calls by timing and outcome', async () => {
    const scraped = await scrape(service);
    assert.ok(scraped.histograms.has('lethe_webhook_call_duration_seconds'));
    const calls = (timing: string, outcome: string) =>
      sampleValue(scraped, 'lethe_webhook_call_duration_seconds_count', { timing, outcome });
    assert.equal(calls('pre', 'ok'), 1);
    // A one_way webhook is tried three times before the request goes on.
    assert.equal(calls('post', 'http_error'), 3);
    assert.equal(receiver.callsTo('/failing').length, 3);
  });

  it('exports queue depth, outbox messages by state, the store check, event-loop delay and memory', async () => {
    const scraped = await scrape(service);
    const queues = family(scraped, 'lethe_queue_jobs').metrics;
    const states = queues
      .filter((metric) => metric.labels?.queue === 'privacy-request-advance')
      .map((metric) => metric.labels?.state);
    assert.deepEqual(states.sort(), ['active', 'deferred', 'failed', 'ready']);
    assert.equal(sampleValue(scraped, 'lethe_store_up', {}), 1);
    const outboxStates = family(scraped, 'lethe_outbox_messages').metrics.map(
      (metric) => metric.labels?.state,
    );
    assert.deepEqual(outboxStates.sort(), ['pending', 'retrying', 'sent']);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
    ]) {
      assert.ok(Number(family(scraped, name).metrics[0]?.value) >= 0, name);
    }
    assert.ok(Number(family(scraped, 'process_resident_memory_bytes').metrics[0]?.value) > 1_000_000);
  });
});

describe('who may scrape /metrics', () => {
  describe('without LETHE_METRICS_TOKEN', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(async () => service?.stop());

    it('answers loopback callers', async () => {
      await scrape(service);
      const answer = await service.app?.inject({ method: 'GET', url: '/metrics', remoteAddress: '::1' });
      assert.equal(answer?.statusCode, 200);
    });

    it('refuses any other address with a sentence naming the token variable', async () => {
      for (const remoteAddress of ['203.0.113.9', '10.0.0.5', '::ffff:192.168.1.2', '2001:db8::1']) {
        const answer = await service.app?.inject({ method: 'GET', url: '/metrics', remoteAddress });
        assert.equal(answer?.statusCode, 403, remoteAddress);
        assert.match(answer?.json().detail, /set LETHE_METRICS_TOKEN/);
        assert.equal(answer?.body.includes('lethe_'), false);
      }
    });

    it('refuses a loopback peer that forwards another caller (a proxy on this host not in LETHE_TRUST_PROXY)', async () => {
      const forwarded: Record<string, string>[] = [
        { 'x-forwarded-for': '203.0.113.9' },
        { 'x-forwarded-for': '127.0.0.1' },
        { forwarded: 'for=203.0.113.9' },
        { 'x-real-ip': '203.0.113.9' },
      ];
      for (const headers of forwarded) {
        for (const remoteAddress of ['127.0.0.1', '::1']) {
          const answer = await service.app?.inject({
            method: 'GET',
            url: '/metrics',
            remoteAddress,
            headers,
          });
          assert.equal(answer?.statusCode, 403, `${JSON.stringify(headers)} from ${remoteAddress}`);
          assert.match(answer?.json().detail, /set LETHE_METRICS_TOKEN/);
          assert.equal(answer?.body.includes('lethe_'), false);
        }
      }
    });
  });

  describe('behind a trusted proxy, without LETHE_METRICS_TOKEN', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ trustProxy: ['127.0.0.1'] });
    });
    after(async () => service?.stop());

    it('believes the trusted proxy about its client: loopback answered, any other refused', async () => {
      const call = (remoteAddress: string, headers: Record<string, string>) =>
        service.app?.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });
      assert.equal((await call('127.0.0.1', { 'x-forwarded-for': '127.0.0.1' }))?.statusCode, 200);
      assert.equal((await call('127.0.0.1', {}))?.statusCode, 200);
      assert.equal((await call('127.0.0.1', { 'x-forwarded-for': '203.0.113.9' }))?.statusCode, 403);
      assert.equal((await call('127.0.0.1', { 'x-real-ip': '203.0.113.9' }))?.statusCode, 403);
      assert.equal(
        (await call('::1', { 'x-forwarded-for': '127.0.0.1' }))?.statusCode,
        403,
        'untrusted peer',
      );
    });
  });

  describe('with LETHE_METRICS_TOKEN', () => {
    const metricsToken = 'scrape-token-0123456789abcdef';
    let service: TestService;
    before(async () => {
      service = await startTestService({ metricsToken, authFailuresPerMinute: 5 });
    });
    after(async () => service?.stop());

    it('needs the bearer token, from loopback too, and answers 401 with WWW-Authenticate otherwise', async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token-0123456789' },
        { authorization: metricsToken },
      ];
      for (const headers of attempts) {
        const answer = await service.call('GET', '/metrics', { headers });
        assert.equal(answer.status, 401, JSON.stringify(headers));
        assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
        assert.equal(answer.text.includes(metricsToken), false);
      }
      await scrape(service, { authorization: `Bearer ${metricsToken}` });
      const remote = await service.app?.inject({
        method: 'GET',
        url: '/metrics',
        remoteAddress: '203.0.113.9',
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      assert.equal(remote?.statusCode, 200);
    });

    it('throttles an address that keeps presenting wrong tokens, the right one included', async () => {
      const remoteAddress = '198.51.100.7';
      const attempt = (token: string) =>
        service.app?.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress,
          headers: { authorization: `Bearer ${token}` },
        });
      for (let tries = 0; tries < 5; tries++) assert.equal((await attempt('wrong-token'))?.statusCode, 401);
      const blocked = await attempt(metricsToken);
      assert.equal(blocked?.statusCode, 429);
      assert.ok(Number(blocked?.headers['retry-after']) >= 1);
    });
  });
});

describe('open privacy requests by deadline', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({ requireManualApproval: true });
    token = await service.rootToken();
  });
  after(async () => service?.stop());

  it('buckets open requests by days left as the API computes days_left, closed ones left out', async () => {
    const policies = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [
        { name: 'Short', key: 'short_deadline', execution_timeframe: 3 },
        { name: 'Month', key: 'month_deadline', execution_timeframe: 20 },
      ],
    });
    assert.deepEqual(policies.body.failed, []);
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        { policy_key: 'short_deadline', identity: { email: 'a@example.com' } },
        { policy_key: 'short_deadline', identity: { email: 'b@example.com' } },
        { policy_key: 'month_deadline', identity: { email: 'c@example.com' } },
        { policy_key: 'month_deadline', identity: { email: 'd@example.com' } },
        { policy_key: 'default_access_policy', identity: { email: 'e@example.com' } },
      ],
    });
    assert.deepEqual(created.body.failed, []);
    const [shortA, shortB, monthA, monthB] = created.body.succeeded.map((item: { id: string }) => item.id);
    // One short request was received 10 days ago: overdue. One month request is denied: closed.
    await service.services.db.query(
      "UPDATE privacy_requests SET requested_at = now() - interval '10 days', due_at = now() - interval '7 days' WHERE id = $1",
      [shortB],
    );
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token,
      json: { request_ids: [monthB], reason: 'not a customer' },
    });
    assert.deepEqual(denied.body.failed, [], denied.text);

    const daysLeft = async (id: string) =>
      (await service.call('GET', `/v1/privacy-request/${id}`, { token })).body.days_left as number;
    // A deadline ends with its last local day, so a 3-day request has 2 whole days left and part of a third
    // (3 when counted in whole days from early in a UTC day); a 20-day one 19 or 20.
    assert.ok([2, 3].includes(await daysLeft(shortA)));
    assert.ok((await daysLeft(shortB)) < 0);
    assert.ok([19, 20].includes(await daysLeft(monthA)));

    const scraped = await scrape(service);
    const bucket = (days_left: string) =>
      sampleValue(scraped, 'lethe_privacy_requests_open_by_deadline', { days_left });
    assert.equal(bucket('overdue'), 1);
    assert.equal(bucket('0-6'), 1);
    assert.equal(bucket('7-29'), 1);
    assert.equal(bucket('30+'), 1);
    assert.equal(sampleValue(scraped, 'lethe_privacy_requests', { status: 'denied' }), 1);
    assert.equal(sampleValue(scraped, 'lethe_privacy_requests', { status: 'pending' }), 4);
  });

  it('counts outbox messages by delivery state: pending, retrying after a failed try, sent', async () => {
    const outboxIn = async () => {
      const scraped = await scrape(service);
      const count = (state: string) => sampleValue(scraped, 'lethe_outbox_messages', { state });
      return { pending: count('pending'), retrying: count('retrying'), sent: count('sent') };
    };
    // Requests received above queued their own "received" messages; these add to them.
    const before = await outboxIn();
    const rows: [string, string, number][] = [
      ['msg_pending_1', 'pending', 0],
      ['msg_pending_2', 'pending', 0],
      ['msg_retrying', 'pending', 3],
      ['msg_sent', 'sent', 1],
    ];
    for (const [id, state, attempts] of rows) {
      await service.services.db.query(
        `INSERT INTO outbox_messages (id, kind, content_sealed, state, attempts, sent_at)
         VALUES ($1, 'received', '\\x00', $2, $3, CASE WHEN $2 = 'sent' THEN now() END)`,
        [id, state, attempts],
      );
    }
    assert.deepEqual(await outboxIn(), {
      pending: before.pending + 2,
      retrying: before.retrying + 1,
      sent: before.sent + 1,
    });
  });
});
