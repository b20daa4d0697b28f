// SQL of the events worker: claims due deliveries with a lease (as the outbox does: a worker that dies
// mid-delivery leaves them to be tried again, two workers never hold one at once) and records each
// attempt. A delivery is claimed only when no earlier delivery of the same request to the same
// subscription is still pending, so each receiver gets a request's events in order.
import type { Queryable } from '../db/database.ts';
import { iso } from './emit.ts';
import type { DeliveryRow, SubscriptionRow } from './repository.ts';
import type { StoredEvent } from './render.ts';

export type ClaimedDelivery = DeliveryRow &
  StoredEvent & {
    url: string;
    format: SubscriptionRow['format'];
    secret_sealed: Uint8Array;
  };

export interface AttemptOutcome {
  statusCode: number | undefined;
  error: string | undefined;
  durationMs: number;
}

export const deliveryRepository = {
  /**
   * Claims up to `limit` due deliveries, at most `perSubscription` of them for any one subscription, only
   * `inFlight` (one round of calls) for a subscription that failed last time, and no more than the
   * failures it has left before `disableAfter` disables it (a claim's deliveries are all posted: one that
   * fails them all is disabled at its 50th failure, not after it). A pass waits for its claim's calls, so a
   * failing receiver holds it for one round of timeouts, not five. Each is under a lease that lasts until its call is surely over. A worker posts at most `inFlight` at once to one
   * subscription, in the claim's order, so the n-th delivery of a subscription waits for at most
   * ceil(n / inFlight) - 1 calls of `callSeconds` before its own: its lease covers those, its own call and
   * one more (a worker that died mid-call leaves it to another soon after; a live one is never overtaken),
   * plus 5 seconds.
   */
  async claimDue(
    db: Queryable,
    at: Date,
    limits: {
      limit: number;
      perSubscription: number;
      disableAfter: number;
      inFlight: number;
      callSeconds: number;
    },
  ): Promise<ClaimedDelivery[]> {
    // The window cannot sit in the locking SELECT (PostgreSQL refuses FOR UPDATE with window functions),
    // so the locking one repeats the due conditions: a row another worker claimed meanwhile is rechecked
    // against them when it is locked, and left out.
    const { rows } = await db.query<ClaimedDelivery>(
      `WITH chosen AS (
         SELECT ranked.id, ranked.place FROM (
           SELECT d.id, d.seq, s.consecutive_failures,
                  row_number() OVER (PARTITION BY d.subscription_key ORDER BY d.seq) AS place
             FROM event_deliveries d JOIN event_subscriptions s ON s.key = d.subscription_key
            WHERE d.state = 'pending' AND d.next_attempt_at <= $1::timestamptz AND s.enabled
              AND NOT EXISTS (SELECT FROM event_deliveries e
                               WHERE e.subscription_key = d.subscription_key
                                 AND e.privacy_request_id = d.privacy_request_id
                                 AND e.state = 'pending' AND e.seq < d.seq)) ranked
          WHERE ranked.place <= LEAST(CASE WHEN ranked.consecutive_failures = 0 THEN $3::int ELSE $4::int END,
                                      $6 - ranked.consecutive_failures)
          ORDER BY ranked.seq LIMIT $2),
       locked AS (
         SELECT d.id FROM event_deliveries d
          WHERE d.id IN (SELECT id FROM chosen) AND d.state = 'pending' AND d.next_attempt_at <= $1::timestamptz
            FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE event_deliveries d SET attempts = d.attempts + 1,
                next_attempt_at = $1::timestamptz + make_interval(secs => ((c.place - 1) / $4 + 2) * $5 + 5)
           FROM chosen c
          WHERE d.id = c.id AND d.id IN (SELECT id FROM locked)
         RETURNING d.*)
       SELECT c.id, c.seq, c.subscription_key, c.event_id, c.event_type, c.subject, c.privacy_request_id,
              c.occurred_at, c.state, c.attempts, c.next_attempt_at, c.give_up_at, c.last_status_code,
              c.last_error, c.delivered_at, c.created_at, s.url, s.format, s.secret_sealed,
              -- the request's clock as it stands (set after the statement that received it), unless the
              -- event carries its own (a task's due date)
              jsonb_build_object('jurisdiction', p.jurisdiction, 'due_at', ${iso('p.due_at')}) || c.data AS data
         FROM claimed c JOIN event_subscriptions s ON s.key = c.subscription_key
         LEFT JOIN privacy_requests p ON p.id = c.privacy_request_id
        ORDER BY c.seq`,
      [at, limits.limit, limits.perSubscription, limits.inFlight, limits.callSeconds, limits.disableAfter],
    );
    return rows;
  },

  /**
   * Records attempts that their receivers accepted, in one statement however many: each attempt is logged,
   * the deliveries are done, and their subscriptions' failures in a row end (written only where there
   * were some: a subscription row rewritten at every batch would be a new row version each time).
   */
  async markDelivered(
    db: Queryable,
    accepted: readonly { delivery: ClaimedDelivery; outcome: AttemptOutcome }[],
    at: Date,
  ) {
    await db.query(
      `WITH accepted AS (
         SELECT * FROM unnest($2::text[], $3::int[], $4::int[], $5::int[])
                    AS t(delivery_id, attempt, status_code, duration_ms)),
       logged AS (
         INSERT INTO event_delivery_attempts (delivery_id, attempt, attempted_at, status_code, duration_ms)
         SELECT delivery_id, attempt, $1, status_code, duration_ms FROM accepted
         ON CONFLICT (delivery_id, attempt) DO NOTHING),
       delivered AS (
         UPDATE event_deliveries d SET state = 'delivered', delivered_at = $1, last_status_code = a.status_code,
                last_error = NULL
           FROM accepted a
          WHERE d.id = a.delivery_id
         RETURNING d.subscription_key)
       UPDATE event_subscriptions SET consecutive_failures = 0
        WHERE key IN (SELECT subscription_key FROM delivered) AND consecutive_failures <> 0`,
      [
        at,
        accepted.map(({ delivery }) => delivery.id),
        accepted.map(({ delivery }) => delivery.attempts),
        accepted.map(({ outcome }) => outcome.statusCode ?? null),
        accepted.map(({ outcome }) => Math.round(outcome.durationMs)),
      ],
    );
  },

  /**
   * Records a failed attempt: the delivery waits `delaySeconds` for its next try, or has failed for good
   * when that try would fall after its give_up_at. Unless `disableAfter` is undefined (an attempt that
   * does not count as the subscription's failure), adds one to the subscription's failures in a row and
   * disables it at `disableAfter`. Answers its failures in a row when this attempt disabled it.
   */
  async markFailed(
    tx: Queryable,
    delivery: ClaimedDelivery,
    at: Date,
    outcome: AttemptOutcome,
    delaySeconds: number,
    disableAfter: number | undefined,
  ): Promise<number | undefined> {
    await this.recordAttempt(tx, delivery, at, outcome);
    await tx.query(
      `UPDATE event_deliveries
          SET last_status_code = $3, last_error = $4,
              next_attempt_at = $2::timestamptz + make_interval(secs => $5::int),
              state = CASE WHEN $2::timestamptz + make_interval(secs => $5::int) > give_up_at
                           THEN 'failed' ELSE 'pending' END
        WHERE id = $1 AND state = 'pending'`,
      [delivery.id, at, outcome.statusCode ?? null, outcome.error ?? null, delaySeconds],
    );
    if (disableAfter === undefined) return undefined;
    const { rows } = await tx.query<{ failures: number; disabled: boolean }>(
      `UPDATE event_subscriptions SET consecutive_failures = consecutive_failures + 1,
              enabled = enabled AND consecutive_failures + 1 < $2,
              disabled_at = CASE WHEN enabled AND consecutive_failures + 1 >= $2 THEN $3 ELSE disabled_at END
        WHERE key = $1
        RETURNING consecutive_failures AS failures, (disabled_at = $3) AS disabled`,
      [delivery.subscription_key, disableAfter, at],
    );
    return rows[0]?.disabled ? rows[0].failures : undefined;
  },

  async recordAttempt(tx: Queryable, delivery: ClaimedDelivery, at: Date, outcome: AttemptOutcome) {
    await tx.query(
      `INSERT INTO event_delivery_attempts (delivery_id, attempt, attempted_at, status_code, error, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING`,
      [
        delivery.id,
        delivery.attempts,
        at,
        outcome.statusCode ?? null,
        outcome.error ?? null,
        outcome.durationMs,
      ],
    );
  },
};
