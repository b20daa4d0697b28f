// One webhook step's call, apart from what the executor decides with its answer: the headers (the
// Idempotency-Key, and the reply-to addresses and token where an answer is awaited), the body in the
// callback contract (docs/privacy-requests.md), and the delivery with its retries, each attempt logged and
// measured. Nothing here reads or writes the request; it never logs an identity, a header value or a body.
import type { CallbackOutcome } from '../../callbacks/client.ts';
import { type CallbackDelivery, CallbackPreparationError } from '../../callbacks/delivery.ts';
import { TargetAuthError } from '../../callbacks/target-oauth.ts';
import type { CallbackTarget } from '../../connections/repository.ts';
import type { Services } from '../../services.ts';
import type { Identity } from '../identity.ts';
import type { LogEntry } from '../log-repository.ts';
import type { RequestRow } from '../repository.ts';
import type { StepRow } from '../step-repository.ts';
import { type PolicyEmbed, policyAction, toPrivacyRequestView } from '../view.ts';

/** How many times a one_way call is tried; a two_way call is tried once (its answer decides). */
const ONE_WAY_TRIES = 3;

/** A pre-approval call, and a two_way pre-execution call, await an answer with a reply-to-token. */
export function asksForReply(step: StepRow): boolean {
  return step.kind === 'pre_approval' || (step.kind === 'pre' && step.direction === 'two_way');
}

/** The call's headers; `replyToken` with the addresses to answer at, when the step awaits an answer. */
export function callbackHeaders(
  row: RequestRow,
  step: StepRow,
  replyToken: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'idempotency-key': `${row.id}:${step.webhook_key}:${step.kind}`,
  };
  if (replyToken === undefined) return headers;
  headers['reply-to-token'] = replyToken;
  if (step.kind === 'pre_approval') {
    const eligible = `/privacy-request/${row.id}/pre-approve/eligible`;
    const notEligible = `/privacy-request/${row.id}/pre-approve/not-eligible`;
    headers['reply-to-eligible'] = eligible;
    headers['reply-to-not-eligible'] = notEligible;
    // Fides' names for the same two addresses.
    headers['reply-to-approve'] = eligible;
    headers['reply-to-deny'] = notEligible;
  } else {
    headers['reply-to'] = `/privacy-request/${row.id}/resume`;
  }
  return headers;
}

/** The body of the callback contract: trusted identities in `identity`, unproved ones apart. */
export function callbackBody(
  row: RequestRow,
  step: StepRow,
  policy: PolicyEmbed,
  identity: Identity,
  unverified: Identity,
  inputs: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    privacy_request_id: row.id,
    privacy_request_status: row.status,
    timestamp: new Date().toISOString(),
    direction: step.kind === 'pre_approval' ? 'one_way' : step.direction,
    callback_type: step.kind,
    identity,
    // Values given on the public side that nobody proved: apart, and only when there are some.
    ...(Object.keys(unverified).length > 0 && { unverified_identity: unverified }),
    policy_action: policyAction(policy),
    privacy_request: toPrivacyRequestView(row, policy),
    // What the request's actions give that receivers may need (the values a correction writes).
    ...inputs,
  });
}

/**
 * Delivers the call (a one_way one up to ONE_WAY_TRIES times while its failures are retryable, backing
 * off), logging and measuring each attempt. A call that cannot be prepared (the target's OAuth token or
 * the signing refused) is `unsendable` for a webhook step, whose request then fails; for a pre-approval
 * step it is a failed outcome (the request awaits manual review).
 */
export async function deliverCallback(
  services: Pick<Services, 'config' | 'metrics'>,
  delivery: CallbackDelivery,
  target: CallbackTarget | undefined,
  step: StepRow,
  headers: Record<string, string>,
  body: string,
): Promise<{ outcome: CallbackOutcome; entries: LogEntry[] } | { unsendable: string; entries: LogEntry[] }> {
  const timing = step.kind;
  const base: LogEntry = {
    kind: 'webhook',
    webhookKey: step.webhook_key,
    timing,
    direction: timing === 'pre_approval' ? null : step.direction,
  };
  const entries: LogEntry[] = [];
  const tries = step.direction === 'two_way' ? 1 : ONE_WAY_TRIES;
  let outcome: CallbackOutcome | undefined;
  try {
    for (let attempt = 1; attempt <= tries; attempt++) {
      outcome = target?.secrets_url
        ? await delivery.deliver(target, target.secrets_url, headers, body, (sent) => {
            entries.push(attemptEntry(base, sent, attempt));
            services.metrics.observeWebhookCall(timing, sent.kind, sent.durationMs / 1000);
          })
        : missingTarget(step);
      if (!target?.secrets_url) entries.push(attemptEntry(base, outcome, attempt));
      if (outcome.ok || !outcome.retryable || attempt === tries) break;
      await delay(services.config.webhookRetryDelayMs * 2 ** (attempt - 1));
    }
  } catch (error) {
    if (!(error instanceof TargetAuthError || error instanceof CallbackPreparationError)) throw error;
    entries.push({ ...base, attempt: entries.length + 1, error: error.message });
    if (timing !== 'pre_approval') return { unsendable: error.message, entries };
    outcome = { ...missingTarget(step), error: error.message };
  }
  return { outcome: outcome as CallbackOutcome, entries };
}

function attemptEntry(base: LogEntry, outcome: CallbackOutcome, attempt: number): LogEntry {
  return {
    ...base,
    targetHost: outcome.targetHost || null,
    httpStatus: outcome.status ?? null,
    durationMs: outcome.durationMs,
    attempt,
    error: outcome.error ?? null,
  };
}

function missingTarget(step: StepRow): CallbackOutcome {
  return {
    ok: false,
    kind: 'refused',
    status: undefined,
    durationMs: 0,
    targetHost: '',
    error: `connection ${step.connection_key} has no callback URL`,
    body: undefined,
    retryable: false,
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
