// Delivers due events to their subscriptions (docs/events.md): claims them with a lease, signs and posts
// each through the SSRF-guarded callback client, and records the attempt. A 2xx answer delivers it; any
// other ending waits longer each time (5 s doubling up to 6 hours) until 24 hours after the event, when the
// delivery has failed for good (it can still be redelivered). 50 failed attempts in a row disable the
// subscription and tell its owners by mail. Deliveries of one request to one subscription go one at a
// time, in order; others go side by side, at most IN_FLIGHT_PER_SUBSCRIPTION to one subscription at once.
import pLimit from 'p-limit';
import { Webhook } from 'standardwebhooks';
import type { CallbackPoster } from '../callbacks/client.ts';
import type { Services } from '../services.ts';
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  deliveryRepository as repo,
} from './delivery-repository.ts';
import { tellOwnersOfDisabledSubscription } from './owner-notice.ts';
import { renderDelivery } from './render.ts';
import { openEventSecret } from './secrets.ts';

/** The longest one call may take, in whole seconds: the unit of a claimed delivery's lease. */
function callSeconds(config: { webhookTimeoutMs: number }): number {
  return Math.ceil(config.webhookTimeoutMs / 1000);
}
/**
 * A claim's size: large enough that a busy Lethe claims a few times a second, not once per handful of
 * deliveries (each claim reads every pending delivery to keep each request's order).
 */
const BATCH = 200;
const CLAIM_PER_SUBSCRIPTION = 50;
/**
 * Deliveries to one subscription a worker posts at once: a receiver (a chat tool's incoming webhook, a
 * small service) should not get a claim's 50 at the same moment. The rest of the claim waits its turn.
 */
export const IN_FLIGHT_PER_SUBSCRIPTION = 10;
export const DISABLE_AFTER_FAILURES = 50;
const MAX_DELAY_SECONDS = 6 * 3600;

export function eventRetryDelaySeconds(attempts: number): number {
  return Math.min(MAX_DELAY_SECONDS, 5 * 2 ** Math.min(20, Math.max(0, attempts - 1)));
}

type DeliveryServices = Pick<Services, 'db' | 'keyring' | 'config' | 'metrics'>;

/** One pass: delivers every delivery due at `at` (default now). Answers how many went and how many failed. */
export async function deliverDueEvents(
  services: DeliveryServices,
  client: CallbackPoster,
  at: () => Date = () => new Date(),
): Promise<{ delivered: number; failed: number }> {
  const tally = { delivered: 0, failed: 0 };
  // Each subscription's secret is opened once a pass, not once a delivery, and forgotten with the pass.
  const signers = new Map<string, Webhook>();
  for (;;) {
    const due = await repo.claimDue(services.db, at(), {
      limit: BATCH,
      perSubscription: CLAIM_PER_SUBSCRIPTION,
      disableAfter: DISABLE_AFTER_FAILURES,
      inFlight: IN_FLIGHT_PER_SUBSCRIPTION,
      callSeconds: callSeconds(services.config),
    });
    if (due.length === 0) return tally;
    const attempts = await postInTurn(due, (delivery) => post(services, client, signers, delivery));
    const when = at();
    // The accepted ones of a batch are recorded together (one statement, not three each): the
    // receivers' answers, not Lethe's bookkeeping, should be what a subscription costs a worker.
    const accepted = attempts.filter((attempt) => attempt.ok);
    if (accepted.length > 0) await repo.markDelivered(services.db, accepted, when);
    for (const attempt of attempts.filter((each) => !each.ok)) await recordFailure(services, attempt, when);
    tally.delivered += accepted.length;
    tally.failed += attempts.length - accepted.length;
  }
}

/**
 * Posts a claim's deliveries, each subscription's in the claim's order and at most
 * IN_FLIGHT_PER_SUBSCRIPTION at once (the order the claim's leases are reckoned in), different
 * subscriptions side by side. Answers the attempts in the claim's order.
 */
function postInTurn(
  due: readonly ClaimedDelivery[],
  postOne: (delivery: ClaimedDelivery) => Promise<Attempt>,
): Promise<Attempt[]> {
  const turns = new Map<string, pLimit.Limit>();
  return Promise.all(
    due.map((delivery) => {
      let turn = turns.get(delivery.subscription_key);
      if (!turn) {
        turn = pLimit(IN_FLIGHT_PER_SUBSCRIPTION);
        turns.set(delivery.subscription_key, turn);
      }
      return turn(() => postOne(delivery));
    }),
  );
}

interface Attempt {
  delivery: ClaimedDelivery;
  outcome: AttemptOutcome;
  ok: boolean;
  /** The receiver's Retry-After, when it sent one with a 429 or a 503. */
  retryAfterSeconds: number | undefined;
}

/** A receiver answering 429 is slowing Lethe down, not failing: chat webhooks allow about a call a second. */
const TOO_MANY_REQUESTS = 429;

/** The signer of a delivery's subscription, keyed by the subscription and its sealed secret (rotation). */
function signerOf(
  keyring: DeliveryServices['keyring'],
  signers: Map<string, Webhook>,
  delivery: ClaimedDelivery,
): Webhook {
  const key = `${delivery.subscription_key}\u0000${Buffer.from(delivery.secret_sealed).toString('base64')}`;
  let signer = signers.get(key);
  if (!signer) {
    signer = new Webhook(openEventSecret(keyring, delivery.subscription_key, delivery.secret_sealed));
    signers.set(key, signer);
  }
  return signer;
}

async function post(
  services: DeliveryServices,
  client: CallbackPoster,
  signers: Map<string, Webhook>,
  delivery: ClaimedDelivery,
): Promise<Attempt> {
  const { keyring, config, metrics } = services;
  const signer = signerOf(keyring, signers, delivery);
  const { headers, body } = renderDelivery(config, delivery.format, signer, delivery, new Date());
  const call = await client.post(delivery.url, headers, body);
  metrics.observeEventDelivery(
    delivery.subscription_key,
    call.ok ? 'delivered' : 'failed',
    call.durationMs / 1000,
  );
  return {
    delivery,
    outcome: { statusCode: call.status, error: call.error, durationMs: call.durationMs },
    ok: call.ok,
    retryAfterSeconds: call.retryAfterSeconds,
  };
}

/**
 * Records a failed attempt. The next try waits as long as the receiver asked (its Retry-After, within the
 * backoff's longest wait), else the backoff. A 429 does not count towards disabling the subscription: a
 * burst of deliveries to a rate-limited receiver (Slack, Teams) would otherwise disable it in one pass.
 */
async function recordFailure(
  services: DeliveryServices,
  { delivery, outcome, retryAfterSeconds }: Attempt,
  when: Date,
): Promise<void> {
  const delaySeconds =
    retryAfterSeconds === undefined
      ? eventRetryDelaySeconds(delivery.attempts)
      : Math.min(MAX_DELAY_SECONDS, Math.max(1, retryAfterSeconds));
  await services.db.transaction(async (tx) => {
    const disabledAfter = await repo.markFailed(
      tx,
      delivery,
      when,
      outcome,
      delaySeconds,
      outcome.statusCode === TOO_MANY_REQUESTS ? undefined : DISABLE_AFTER_FAILURES,
    );
    if (disabledAfter !== undefined) {
      await tellOwnersOfDisabledSubscription(tx, services, delivery.subscription_key, disabledAfter);
    }
  });
}
