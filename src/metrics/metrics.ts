// The only module that knows the Prometheus client (prom-client): every instrument Lethe exports is named
// and described here, and the rest of the code calls these methods with its own words. Instruments live
// in a registry of their own per process (tests run several services in one process), never the global
// one. Values read from the store (requests by status and deadline, queue depth, outbox) are read once
// per scrape, just before rendering; a store that cannot be read leaves them out and sets lethe_store_up to 0 instead
// of failing the scrape, so process metrics stay visible during an outage. No label ever holds a personal
// value, an id or a raw URL: routes are their patterns.
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Open privacy requests by days left before their due date (`days_left` of the API). */
export const DEADLINE_BUCKETS = ['overdue', '0-6', '7-29', '30+'] as const;
export type DeadlineBucket = (typeof DEADLINE_BUCKETS)[number];

/** How one webhook call ended. */
export type WebhookCallOutcome = 'ok' | 'http_error' | 'timeout' | 'network_error' | 'refused';

export interface LabelledCount<L extends string> {
  labels: Record<L, string>;
  count: number;
}

/** What the store answers at each scrape; wired by the runtime to the owners of those tables. */
export interface StoreReadings {
  privacyRequestsByStatus(): Promise<LabelledCount<'status'>[]>;
  openPrivacyRequestsByDeadline(): Promise<LabelledCount<'days_left'>[]>;
  queuedJobs(): Promise<LabelledCount<'queue' | 'state'>[]>;
  outboxMessagesByState(): Promise<LabelledCount<'state'>[]>;
  stuckPrivacyRequests(): Promise<number>;
  /** Event deliveries by subscription and state (pending, failed). */
  eventDeliveriesByState(): Promise<LabelledCount<'subscription' | 'state'>[]>;
  /** Each event subscription's failed attempts in a row (50 disable it). */
  eventSubscriptionFailures(): Promise<LabelledCount<'subscription'>[]>;
}

/** How one attempt to deliver an event ended. */
export type EventDeliveryOutcome = 'delivered' | 'failed';

const SECONDS_BUCKETS_HTTP = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const SECONDS_BUCKETS_WEBHOOK = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly #registry = new Registry();
  readonly #readings: StoreReadings;
  readonly #httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly #webhookDuration: Histogram<'timing' | 'outcome'>;
  readonly #requestsByStatus: Gauge<'status'>;
  readonly #openByDeadline: Gauge<'days_left'>;
  readonly #queueJobs: Gauge<'queue' | 'state'>;
  readonly #outboxMessages: Gauge<'state'>;
  readonly #storeUp: Gauge;
  readonly #stuck: Gauge;
  readonly #eventDeliveries: Gauge<'subscription' | 'state'>;
  readonly #eventFailuresInARow: Gauge<'subscription'>;
  readonly #eventAttempts: Histogram<'subscription' | 'outcome'>;

  constructor(readings: StoreReadings) {
    this.#readings = readings;
    const registers = [this.#registry];
    // Process memory, CPU, heap, GC and event-loop delay (nodejs_eventloop_lag_*), under their usual names.
    collectDefaultMetrics({ register: this.#registry, eventLoopMonitoringPrecision: 20 });
    this.#httpDuration = new Histogram({
      name: 'lethe_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: SECONDS_BUCKETS_HTTP,
      registers,
    });
    this.#webhookDuration = new Histogram({
      name: 'lethe_webhook_call_duration_seconds',
      help: 'Duration of each webhook call this process made, by timing (pre_approval, pre, post) and outcome; _count is the number of calls.',
      labelNames: ['timing', 'outcome'],
      buckets: SECONDS_BUCKETS_WEBHOOK,
      registers,
    });
    this.#requestsByStatus = new Gauge({
      name: 'lethe_privacy_requests',
      help: 'Privacy requests in the store, by status.',
      labelNames: ['status'],
      registers,
    });
    this.#openByDeadline = new Gauge({
      name: 'lethe_privacy_requests_open_by_deadline',
      help: 'Open privacy requests (not complete, denied nor canceled) by days left before their due date: overdue, 0-6, 7-29, 30+.',
      labelNames: ['days_left'],
      registers,
    });
    this.#queueJobs = new Gauge({
      name: 'lethe_queue_jobs',
      help: 'Jobs of the durable queue by queue and state (ready, deferred, active, failed), as of the queue monitor pass (every 10 s).',
      labelNames: ['queue', 'state'],
      registers,
    });
    this.#outboxMessages = new Gauge({
      name: 'lethe_outbox_messages',
      help: 'Messages to data subjects in the outbox by state: pending (not tried yet), retrying (failed at least once), sent.',
      labelNames: ['state'],
      registers,
    });
    this.#stuck = new Gauge({
      name: 'lethe_privacy_requests_stuck',
      help: 'Privacy requests flagged stuck: approved or in_processing with no progress for LETHE_STUCK_AFTER_SECONDS, or with an overdue task.',
      registers,
    });
    this.#eventDeliveries = new Gauge({
      name: 'lethe_event_deliveries',
      help: 'Event deliveries by subscription and state: pending (not yet accepted, retried with backoff), failed (gave up after 24 hours). Delivered ones: the attempts counter.',
      labelNames: ['subscription', 'state'],
      registers,
    });
    this.#eventFailuresInARow = new Gauge({
      name: 'lethe_event_subscription_failures_in_a_row',
      help: 'Failed delivery attempts in a row per event subscription; at 50 the subscription is disabled.',
      labelNames: ['subscription'],
      registers,
    });
    this.#eventAttempts = new Histogram({
      name: 'lethe_event_delivery_attempt_duration_seconds',
      help: 'Duration of each event delivery attempt this process made, by subscription and outcome; _count is the number of attempts.',
      labelNames: ['subscription', 'outcome'],
      buckets: SECONDS_BUCKETS_WEBHOOK,
      registers,
    });
    this.#storeUp = new Gauge({
      name: 'lethe_store_up',
      help: '1 when this scrape could read the store; 0 when it could not (store-based metrics are then absent).',
      registers,
    });
  }

  observeHttpRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.#httpDuration.observe({ method, route, status_code: String(statusCode) }, seconds);
  }

  observeWebhookCall(timing: string, outcome: WebhookCallOutcome, seconds: number): void {
    this.#webhookDuration.observe({ timing, outcome }, seconds);
  }

  observeEventDelivery(subscription: string, outcome: EventDeliveryOutcome, seconds: number): void {
    this.#eventAttempts.observe({ subscription, outcome }, seconds);
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The exposition text: store readings are refreshed first, then every instrument is rendered. */
  async render(): Promise<string> {
    await this.#refreshStoreReadings();
    return this.#registry.metrics();
  }

  async #refreshStoreReadings(): Promise<void> {
    const gauges = [
      this.#requestsByStatus,
      this.#openByDeadline,
      this.#queueJobs,
      this.#outboxMessages,
      this.#stuck,
      this.#eventDeliveries,
      this.#eventFailuresInARow,
    ];
    try {
      const [byStatus, byDeadline, jobs, outbox, stuck, deliveries, failures] = [
        await this.#readings.privacyRequestsByStatus(),
        await this.#readings.openPrivacyRequestsByDeadline(),
        await this.#readings.queuedJobs(),
        await this.#readings.outboxMessagesByState(),
        await this.#readings.stuckPrivacyRequests(),
        await this.#readings.eventDeliveriesByState(),
        await this.#readings.eventSubscriptionFailures(),
      ];
      for (const gauge of gauges) gauge.reset();
      for (const { labels, count } of byStatus) this.#requestsByStatus.set(labels, count);
      for (const { labels, count } of byDeadline) this.#openByDeadline.set(labels, count);
      for (const { labels, count } of jobs) this.#queueJobs.set(labels, count);
      for (const { labels, count } of outbox) this.#outboxMessages.set(labels, count);
      this.#stuck.set(stuck);
      for (const { labels, count } of deliveries) this.#eventDeliveries.set(labels, count);
      for (const { labels, count } of failures) this.#eventFailuresInARow.set(labels, count);
      this.#storeUp.set(1);
    } catch {
      for (const gauge of gauges) gauge.reset();
      this.#storeUp.set(0);
    }
  }
}
