// Delivery of events (docs/events.md), one pass at a time on a service without a worker, with the clock
// passed in: a receiver that fails is retried with a growing wait, each attempt in the delivery log;
// a request's events reach a receiver in order (a later one waits for the earlier); after 24 hours a
// delivery has failed for good and can be redelivered under its webhook-id; 50 failures in a row disable
// the subscription and mail its owners; /metrics counts deliveries per subscription.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { CallbackClient } from '../../src/callbacks/client.ts';
import {
  DISABLE_AFTER_FAILURES,
  deliverDueEvents,
  eventRetryDelaySeconds,
  IN_FLIGHT_PER_SUBSCRIPTION,
} from '../../src/events/delivery.ts';
import { deliveryRepository } from '../../src/events/delivery-repository.ts';
import { EVENT_DELIVERY_COUNTS_SQL } from '../../src/events/readings.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, type Receiver, startReceiver } from '../privacy-requests/support.ts';
import { signIn } from '../tasks/support.ts';

describe('event delivery', () => {
  let receiver: Receiver;
  let service: TestService;
  let client: CallbackClient;
  let root: string;
  let secret: string;
  let clock = Date.now();
  const now = () => new Date(clock);
  const pass = () => deliverDueEvents(service.services, client, now);

  before(async () => {
    receiver = await startReceiver();
    service = await startTestService({ ...engineConfig, requireManualApproval: true }, { worker: false });
    client = new CallbackClient(service.config);
    root = await service.rootToken();
    const created = await service.call('PUT', '/v1/event-subscription/audit-trail', {
      token: root,
      json: {
        url: `${receiver.url}/audit-trail`,
        events: ['privacy_request.received', 'privacy_request.approved', 'privacy_request.denied'],
        format: 'cloudevents',
      },
    });
    assert.equal(created.status, 201, created.text);
    secret = created.body.secret;
  });
  after(async () => {
    await client.close();
    await service.stop();
    await receiver.close();
  });

  const create = async () => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email: 'someone@delivery.example' } }],
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.succeeded[0].id as string;
  };
  const metricsText = () => fetch(`${service.url}/metrics`).then((answer) => answer.text());
  const deliveries = async (key = 'audit-trail') => {
    const answer = await service.call('GET', `/v1/event-subscription/${key}/delivery?size=200`, {
      token: root,
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.items as {
      id: string;
      event_type: string;
      subject: string;
      state: string;
      last_status_code: number | null;
      attempts: { attempt: number; status_code: number | null; error: string | null }[];
    }[];
  };

  it('retries a failing receiver with a growing wait, logs each attempt, and keeps a request’s events in order', async () => {
    const id = await create();
    await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: root,
      json: { request_ids: [id] },
    });
    let failing = true;
    receiver.on('/audit-trail', () => ({ status: failing ? 503 : 204 }));
    clock = Date.now() + 1000;

    assert.deepEqual(
      await pass(),
      { delivered: 0, failed: 1 },
      'only the first event of the request is tried',
    );
    assert.deepEqual(await pass(), { delivered: 0, failed: 0 }, 'it waits for its next try');
    clock += eventRetryDelaySeconds(1) * 1000;
    assert.deepEqual(await pass(), { delivered: 0, failed: 1 });
    assert.ok(eventRetryDelaySeconds(2) > eventRetryDelaySeconds(1));
    clock += eventRetryDelaySeconds(2) * 1000;
    failing = false;
    assert.deepEqual(await pass(), { delivered: 2, failed: 0 });

    const calls = receiver.callsTo('/audit-trail').filter((call) => call.body.subject === id);
    assert.deepEqual(
      calls.map((call) => call.body.type),
      [
        'dev.lethe.privacy_request.received',
        'dev.lethe.privacy_request.received',
        'dev.lethe.privacy_request.received',
        'dev.lethe.privacy_request.approved',
      ],
    );
    // Every try of one delivery carries the same webhook-id and event id, each signed anew.
    const ids = new Set(calls.slice(0, 3).map((call) => call.headers['webhook-id']));
    assert.equal(ids.size, 1);
    assert.equal(new Set(calls.slice(0, 3).map((call) => call.body.id)).size, 1);
    for (const call of calls) new Webhook(secret).verify(call.raw, call.headers as Record<string, string>);

    const log = (await deliveries()).filter((delivery) => delivery.subject === id);
    const received = log.find((delivery) => delivery.event_type === 'privacy_request.received');
    assert.equal(received?.state, 'delivered');
    assert.equal(received?.id, calls[0]?.headers['webhook-id']);
    assert.deepEqual(
      received?.attempts.map((attempt) => [attempt.attempt, attempt.status_code]),
      [
        [1, 503],
        [2, 503],
        [3, 204],
      ],
    );
    assert.equal(received?.attempts[0]?.error, 'answered HTTP 503');
  });

  it('gives up after 24 hours, and redelivers under the same webhook-id', async () => {
    const id = await create();
    receiver.on('/audit-trail', () => ({ status: 500 }));
    const start = clock;
    while (clock - start < 25 * 3600 * 1000) {
      await pass();
      clock += 3600 * 1000;
    }
    const [failed] = (await deliveries()).filter((delivery) => delivery.subject === id);
    assert.equal(failed?.state, 'failed');
    const tries = failed?.attempts.length ?? 0;
    assert.ok(tries > 5 && tries < 30, `${tries} tries`);
    await pass();
    assert.equal((await deliveries()).find((delivery) => delivery.id === failed?.id)?.attempts.length, tries);
    assert.match(
      await metricsText(),
      /lethe_event_deliveries\{subscription="audit-trail",state="failed"\} 1\n/,
    );

    receiver.on('/audit-trail', () => ({ status: 200 }));
    const again = await service.call(
      'POST',
      `/v1/event-subscription/audit-trail/delivery/${failed?.id}/redeliver`,
      { token: root },
    );
    assert.equal(again.status, 202, again.text);
    clock = Date.now();
    await pass();
    const redelivered = (await deliveries()).find((delivery) => delivery.id === failed?.id);
    assert.equal(redelivered?.state, 'delivered');
    assert.match(
      await metricsText(),
      /lethe_event_deliveries\{subscription="audit-trail",state="failed"\} 0\n/,
    );
    const last = receiver.callsTo('/audit-trail').at(-1);
    assert.equal(last?.headers['webhook-id'], failed?.id);
    const unknown = await service.call(
      'POST',
      '/v1/event-subscription/audit-trail/delivery/msg_nope/redeliver',
      {
        token: root,
      },
    );
    assert.equal(unknown.status, 404);
  });

  it('disables a subscription after 50 failures in a row and mails its owners', async () => {
    await signIn(service, 'owner@company.example', ['owner']);
    const created = await service.call('PUT', '/v1/event-subscription/broken', {
      token: root,
      json: { url: `${receiver.url}/broken`, events: ['privacy_request.received'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201);
    receiver.on('/broken', () => ({ status: 410 }));
    for (let n = 0; n < DISABLE_AFTER_FAILURES + 3; n += 1) await create();
    for (let round = 0; round < 5; round += 1) {
      await pass();
      clock += 7 * 3600 * 1000;
    }
    const read = await service.call('GET', '/v1/event-subscription/broken', { token: root });
    assert.equal(read.body.enabled, false);
    assert.equal(read.body.consecutive_failures, DISABLE_AFTER_FAILURES);
    assert.ok(read.body.disabled_at);
    assert.equal(
      receiver.callsTo('/broken').length,
      DISABLE_AFTER_FAILURES,
      'nothing more is sent once disabled',
    );
    const outbox = await service.call('GET', '/v1/outbox?size=200', { token: root });
    const notices = outbox.body.items.filter(
      (message: { kind: string }) => message.kind === 'event_subscription_disabled',
    );
    assert.equal(notices.length, 1, outbox.text);
    assert.equal(notices[0].to, 'owner@company.example');
    assert.match(notices[0].subject, /disabled the event subscription broken/);

    // Enabled again, it starts a new count.
    const enabled = await service.call('PUT', '/v1/event-subscription/broken', {
      token: root,
      json: {
        url: read.body.url,
        events: ['privacy_request.received'],
        format: 'cloudevents',
        enabled: true,
      },
    });
    assert.equal(enabled.body.enabled, true);
    assert.equal(enabled.body.consecutive_failures, 0);
  });

  it('counts deliveries per subscription and state in /metrics', async () => {
    const metrics = await metricsText();
    assert.match(metrics, /lethe_event_deliveries\{subscription="audit-trail",state="pending"\} 0\n/);
    assert.match(metrics, /lethe_event_deliveries\{subscription="broken",state="pending"\} [1-9]/);
    assert.doesNotMatch(metrics, /lethe_event_deliveries\{[^}]*state="delivered"/);
    assert.match(
      metrics,
      /lethe_event_delivery_attempt_duration_seconds_count\{subscription="audit-trail",outcome="delivered"\} [1-9]/,
    );
    assert.match(metrics, /lethe_event_subscription_failures_in_a_row\{subscription="broken"\} 0/);
    assert.match(
      metrics,
      /lethe_event_delivery_attempt_duration_seconds_count\{subscription="audit-trail",outcome="failed"\} [1-9]/,
    );
  });
  it('waits as long as a receiver that answers 429 asks, and does not disable it for that', async () => {
    const created = await service.call('PUT', '/v1/event-subscription/throttled', {
      token: root,
      json: { url: `${receiver.url}/throttled`, events: ['privacy_request.received'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201, created.text);
    let busy = true;
    receiver.on('/throttled', () =>
      busy ? { status: 429, headers: { 'retry-after': '120' } } : { status: 204 },
    );
    const burst = DISABLE_AFTER_FAILURES + 5;
    for (let n = 0; n < burst; n += 1) await create();
    // Near the real time, once the burst is written: each delivery is due from when it was written and gives
    // up 24 hours later, and the tests above moved the clock on. (Set before the burst, a slow machine wrote
    // part of it after the clock's time, and those deliveries were not yet due.)
    clock = Date.now() + 1000;

    await pass();
    assert.equal(receiver.callsTo('/throttled').length, burst, 'the whole burst was tried once');
    let read = await service.call('GET', '/v1/event-subscription/throttled', { token: root });
    assert.equal(read.body.enabled, true, 'more 429s than the failures that disable it, and still enabled');
    assert.equal(read.body.consecutive_failures, 0);

    clock += 60_000;
    await pass();
    assert.equal(receiver.callsTo('/throttled').length, burst, 'nothing is tried before the 120 s asked');
    busy = false;
    clock += 61_000;
    await pass();
    assert.equal(receiver.callsTo('/throttled').length, 2 * burst, 'every delivery is tried again then');
    const log = await deliveries('throttled');
    assert.equal(log.length, burst);
    assert.ok(log.every((delivery) => delivery.state === 'delivered'));
    assert.ok(
      log.every((delivery) => delivery.attempts.map((attempt) => attempt.status_code).join() === '429,204'),
    );
    read = await service.call('GET', '/v1/event-subscription/throttled', { token: root });
    assert.equal(read.body.enabled, true);
  });
  it('posts at most IN_FLIGHT_PER_SUBSCRIPTION deliveries to one subscription at once, and all of them in one pass', async () => {
    const created = await service.call('PUT', '/v1/event-subscription/crowded', {
      token: root,
      json: { url: `${receiver.url}/crowded`, events: ['privacy_request.received'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201, created.text);
    let inFlight = 0;
    let mostInFlight = 0;
    receiver.on('/crowded', () => {
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      // Answered after a while, so that the calls of one claim overlap; the count drops as each answer goes.
      return new Promise((resolve) =>
        setTimeout(() => {
          inFlight -= 1;
          resolve({ status: 204 });
        }, 150),
      );
    });
    const requests = IN_FLIGHT_PER_SUBSCRIPTION * 2 + 5;
    for (let n = 0; n < requests; n += 1) await create();
    clock = Date.now() + 1000;

    await pass();
    assert.equal(receiver.callsTo('/crowded').length, requests, 'every delivery went in the one pass');
    assert.ok(
      mostInFlight > 1 && mostInFlight <= IN_FLIGHT_PER_SUBSCRIPTION,
      `${mostInFlight} calls were in flight at once to one subscription`,
    );
    const log = await deliveries('crowded');
    assert.equal(log.length, requests);
    assert.ok(log.every((delivery) => delivery.state === 'delivered'));
  });
  it('counts pending and failed deliveries for /metrics from indexes, never reading the delivered ones', async () => {
    // The delivery log keeps delivered deliveries without end: a scrape that read them would cost more
    // with every delivery (0.6 s at a million). With sequential scans off, a plan that still has one on
    // event_deliveries could not do without it.
    const plan = await service.services.db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const { rows } = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${EVENT_DELIVERY_COUNTS_SQL}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    assert.doesNotMatch(plan, /Seq Scan on event_deliveries/, plan);
    assert.match(plan, /event_deliveries_order_idx/, plan);
    assert.match(plan, /event_deliveries_failed_idx/, plan);
  });

  it('leases each claimed delivery until its turn is surely over, and claims one round for a failing subscription, never more than it has failures left', async () => {
    const created = await service.call('PUT', '/v1/event-subscription/leased', {
      token: root,
      json: { url: `${receiver.url}/leased`, events: ['privacy_request.received'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201, created.text);
    const requests = IN_FLIGHT_PER_SUBSCRIPTION * 2 + 5;
    for (let n = 0; n < requests; n += 1) await create();
    // Other subscriptions' deliveries of these requests are not this test's: they are claimed first.
    await service.services.db.query(
      `UPDATE event_deliveries SET next_attempt_at = next_attempt_at + interval '1 year'
        WHERE subscription_key <> 'leased' AND state = 'pending'`,
    );
    // The clock is read after the 25 are written: set before, a slow server would write some of them
    // after it, not yet due.
    clock = Date.now() + 1000;
    const at = new Date(clock);
    const limits = { limit: 200, perSubscription: 50, disableAfter: 50, inFlight: 10, callSeconds: 3 };

    const claimed = await deliveryRepository.claimDue(service.services.db, at, limits);
    assert.equal(claimed.length, requests);
    const leases = claimed.map((delivery) => (delivery.next_attempt_at.getTime() - at.getTime()) / 1000);
    // Posted 10 at a time in the claim's order: the 11th waits for at most one call before its own.
    assert.deepEqual(leases, [
      ...Array.from({ length: 10 }, () => 2 * 3 + 5),
      ...Array.from({ length: 10 }, () => 3 * 3 + 5),
      ...Array.from({ length: 5 }, () => 4 * 3 + 5),
    ]);

    // Leased, they are not claimed again. Free again, a subscription that failed last time gets one round
    // in a claim, and one 3 failures short of being disabled gets 3.
    assert.equal((await deliveryRepository.claimDue(service.services.db, at, limits)).length, 0);
    const failures = (count: number) =>
      service.services.db.query(
        `UPDATE event_subscriptions SET consecutive_failures = $1 WHERE key = 'leased'`,
        [count],
      );
    await failures(1);
    const later = new Date(at.getTime() + 60_000);
    assert.equal((await deliveryRepository.claimDue(service.services.db, later, limits)).length, 10);
    await failures(DISABLE_AFTER_FAILURES - 3);
    const muchLater = new Date(later.getTime() + 60_000);
    assert.equal((await deliveryRepository.claimDue(service.services.db, muchLater, limits)).length, 3);
  });
});
