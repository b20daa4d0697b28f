// What /metrics reads of the events at each scrape: each subscription's pending and failed deliveries (0
// when none) and its failures in a row. Both counts come from partial indexes: a scrape never reads the
// delivered deliveries, which the delivery log keeps without end (a million of them took a scrape 0.6 s
// when it counted them). How many are delivered is the attempts' counter, per process
// (lethe_event_delivery_attempt_duration_seconds_count{outcome="delivered"}).
import type { Queryable } from '../db/database.ts';
import type { LabelledCount } from '../metrics/metrics.ts';

/** Each state spelled out, so that the planner can match it to its partial index. */
export const EVENT_DELIVERY_COUNTS_SQL = `
  SELECT s.key AS subscription,
         (SELECT count(*) FROM event_deliveries d
           WHERE d.subscription_key = s.key AND d.state = 'pending')::int AS pending,
         (SELECT count(*) FROM event_deliveries d
           WHERE d.subscription_key = s.key AND d.state = 'failed')::int AS failed
    FROM event_subscriptions s ORDER BY s.key`;

export function eventReadings(db: Queryable) {
  return {
    async eventDeliveriesByState(): Promise<LabelledCount<'subscription' | 'state'>[]> {
      const { rows } = await db.query<{ subscription: string; pending: number; failed: number }>(
        EVENT_DELIVERY_COUNTS_SQL,
      );
      return rows.flatMap(({ subscription, pending, failed }) => [
        { labels: { subscription, state: 'pending' }, count: pending },
        { labels: { subscription, state: 'failed' }, count: failed },
      ]);
    },
    async eventSubscriptionFailures(): Promise<LabelledCount<'subscription'>[]> {
      const { rows } = await db.query<{ subscription: string; count: number }>(
        'SELECT key AS subscription, consecutive_failures AS count FROM event_subscriptions ORDER BY key',
      );
      return rows.map(({ subscription, count }) => ({ labels: { subscription }, count }));
    },
  };
}
