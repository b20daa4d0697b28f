// Delivers due events to their subscriptions (docs/events.md): claims them with a lease, signs and posts
// each through the SSRF-guarded callback client, and records the attempt. A 2xx answer delivers it; any
// other ending waits longer each time (5 s doubling up to 6 hours) until 24 hours after the event, when the
// delivery has failed for good (it can still be redelivered). 50 failed attempts in a row disable the
// subscription and tell its owners by mail. Deliveries of one request to one subscription go one at a
// time, in order; others go side by side.
import type { CallbackClient } from '../callbacks/client.ts';
import type { Services } from '../services.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  deliveryRepository as repo,
} from './delivery-repository.ts';
import { tellOwnersOfDisabledSubscription } from './owner-notice.ts';
import { renderDelivery } from './render.ts';
import { openEventSecret } from './secrets.ts';

/** How long a claimed delivery is hidden from other workers: longer than any call may take. */
const LEASE_SECONDS = 120;
const BATCH = 20;
export const DISABLE_AFTER_FAILURES = 50;
const MAX_DELAY_SECONDS = 6 * 3600;

export function eventRetryDelaySeconds(attempts: number): number {
  return Math.min(MAX_DELAY_SECONDS, 5 * 2 ** Math.min(20, Math.max(0, attempts - 1)));
}

type DeliveryServices = Pick<Services, 'db' | 'keyring' | 'config' | 'metrics'>;

/** One pass: delivers every delivery due at `at` (default now). Answers how many went and how many failed. */
export async function deliverDueEvents(
  services: DeliveryServices,
  client: CallbackClient,
  at: () => Date = () => new Date(),
): Promise<{ delivered: number; failed: number }> {
  const tally = { delivered: 0, failed: 0 };
  for (;;) {
    const due = await repo.claimDue(services.db, at(), LEASE_SECONDS, BATCH);
    if (due.length === 0) return tally;
    const outcomes = await Promise.all(due.map((delivery) => deliverOne(services, client, delivery, at)));
    for (const ok of outcomes) tally[ok ? 'delivered' : 'failed'] += 1;
  }
}

async function deliverOne(
  services: DeliveryServices,
  client: CallbackClient,
  delivery: ClaimedDelivery,
  at: () => Date,
): Promise<boolean> {
  const { db, keyring, config, metrics } = services;
  const secret = openEventSecret(keyring, delivery.subscription_key, delivery.secret_sealed);
  const { headers, body } = renderDelivery(config, delivery.format, secret, delivery, new Date());
  const call = await client.post(delivery.url, headers, body);
  const outcome: AttemptOutcome = { statusCode: call.status, error: call.error, durationMs: call.durationMs };
  const when = at();
  metrics.observeEventDelivery(
    delivery.subscription_key,
    call.ok ? 'delivered' : 'failed',
    call.durationMs / 1000,
  );
  await db.transaction(async (tx) => {
    if (call.ok) {
      await repo.markDelivered(tx, delivery, when, outcome);
      return;
    }
    const { disabled, failures } = await repo.markFailed(
      tx,
      delivery,
      when,
      outcome,
      eventRetryDelaySeconds(delivery.attempts),
      DISABLE_AFTER_FAILURES,
    );
    if (disabled) await tellOwnersOfDisabledSubscription(tx, services, delivery.subscription_key, failures);
  });
  return call.ok;
}
