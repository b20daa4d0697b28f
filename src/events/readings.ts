// What /metrics reads of the events at each scrape: deliveries by subscription and state (every state of
// every subscription answered, 0 when empty) and each subscription's failures in a row.
import type { Queryable } from '../db/database.ts';
import type { LabelledCount } from '../metrics/metrics.ts';

const STATES = ['pending', 'delivered', 'failed'] as const;

export function eventReadings(db: Queryable) {
  return {
    async eventDeliveriesByState(): Promise<LabelledCount<'subscription' | 'state'>[]> {
      const { rows } = await db.query<{ subscription: string; state: string; count: number }>(
        `SELECT s.key AS subscription, t.state, count(d.id)::int AS count
           FROM event_subscriptions s CROSS JOIN unnest($1::text[]) AS t(state)
           LEFT JOIN event_deliveries d ON d.subscription_key = s.key AND d.state = t.state
          GROUP BY 1, 2 ORDER BY 1, 2`,
        [STATES],
      );
      return rows.map(({ subscription, state, count }) => ({ labels: { subscription, state }, count }));
    },
    async eventSubscriptionFailures(): Promise<LabelledCount<'subscription'>[]> {
      const { rows } = await db.query<{ subscription: string; count: number }>(
        'SELECT key AS subscription, consecutive_failures AS count FROM event_subscriptions ORDER BY key',
      );
      return rows.map(({ subscription, count }) => ({ labels: { subscription }, count }));
    },
  };
}
