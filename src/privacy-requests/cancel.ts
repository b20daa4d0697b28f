// Canceling a privacy request: by an operator (POST /v1/privacy-request/{id}/cancel) or by the sweep when
// its subject never verified their identity. Allowed before any work has begun, while paused, and while
// waiting on manual tasks (requires_input); a paused request's reply-to-token dies with it, the features'
// cancel hooks run in the same transaction (its open tasks close; its verification code goes with the move,
// src/privacy-requests/lifecycle.ts), and since every later step is a compare-and-set on the status, no
// webhook runs afterwards. What the rules step already did is not undone. The subject is told in the same
// transaction.
//
// Cancel cannot refuse (DECISIONS "The law, complete"): once a request's identity is verified, or when an
// operator made it, a cancel must say why with one of CANCEL_REASON_CODES; a refusal is a denial, with the
// reasons, the authority and the appeal the law owes. Before verification a cancel needs no code.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import type { Queryable } from '../db/database.ts';
import { badRequest, invalid, notFound } from '../errors.ts';
import { queueSubjectMessages } from './messages/subject-messages.ts';
import type { Services } from '../services.ts';
import { hooksOf } from './lifecycle.ts';
import { sweepRepository } from './sweep-repository.ts';
import { replyTokenRepository } from './reply-token-repository.ts';
import { privacyRequestRepository as repo, type RequestRow } from './repository.ts';
import type { Status } from './statuses.ts';

export const CANCELABLE: readonly Status[] = [
  'identity_unverified',
  'pending',
  'approved',
  'paused',
  'requires_input',
];
export const UNVERIFIED_REASON = 'identity not verified in time';

/** Why a request may be canceled once it is verified: the subject withdrew, it repeats another, or nobody could verify it. */
export const CANCEL_REASON_CODES = ['subject_withdrew', 'duplicate', 'unverifiable'] as const;
export type CancelReasonCode = (typeof CANCEL_REASON_CODES)[number];

export function isCancelReasonCode(value: string): value is CancelReasonCode {
  return (CANCEL_REASON_CODES as readonly string[]).includes(value);
}

/** Whether a cancel of `row` must carry a reason code: its identity was verified, or an operator made it. */
export function needsReasonCode(row: Pick<RequestRow, 'identity_verified_at' | 'client_id'>): boolean {
  return row.identity_verified_at !== null || row.client_id !== null;
}

/** Why a cancel with `code` is refused for `row`, or undefined when it may go on. */
export function reasonCodeRefusal(
  row: Pick<RequestRow, 'identity_verified_at' | 'client_id'>,
  code: string | null,
): string | undefined {
  const allowed = CANCEL_REASON_CODES.join(', ');
  if (code !== null && !isCancelReasonCode(code))
    return `reason_code ${JSON.stringify(code)} is not one of ${allowed}; to refuse a request, deny it with a reason.`;
  if (code === null && needsReasonCode(row))
    return `reason_code is required to cancel a verified or operator-made request: one of ${allowed}; to refuse a request, deny it with a reason.`;
  return undefined;
}

/** Cancels a request the caller holds locked; false (nothing changed) when its status does not allow it. */
export async function cancelLocked(
  tx: Queryable,
  services: Pick<Services, 'db' | 'keyring' | 'config' | 'queue'>,
  row: RequestRow,
  reason: string | null,
  by: string,
  code: CancelReasonCode | null = null,
): Promise<boolean> {
  if (!CANCELABLE.includes(row.status)) return false;
  const now = new Date();
  const moved = await repo.transition(tx, {
    id: row.id,
    from: row.status,
    to: 'canceled',
    changes: {
      canceled_at: now,
      cancel_reason: reason,
      cancel_reason_code: code,
      finalized_at: now,
      finalized_by: by,
      paused_at: null,
      paused_step: null,
    },
    message: `canceled by ${by}${code ? ` (${code})` : ''}${reason ? `: ${reason}` : ''}`,
  });
  if (!moved) return false;
  for (const hook of hooksOf('onCancel')) await hook(tx, services, { row, by });
  await replyTokenRepository.expireTokens(tx, row.id);
  await queueSubjectMessages(tx, services, [
    { request: row, kind: 'canceled', details: { reason: reason ?? undefined } },
  ]);
  return true;
}

const cannotCancel = (status: Status) =>
  badRequest(`cannot cancel a request in status ${status}; only ${CANCELABLE.join(', ')} can be canceled`);

/**
 * An operator's cancel: logged under their name with its reason code, and audited (the code, never the
 * reason, which may name the subject). 422 without a code once the request is verified or operator-made,
 * and for an unknown code; nothing changes then.
 */
export async function cancelPrivacyRequest(
  services: Services,
  id: string,
  reason: string | null,
  by: ChangeActor,
  reasonCode: string | null = null,
): Promise<void> {
  await services.db.transaction(async (tx) => {
    const row = await repo.lock(tx, id);
    if (!row) throw notFound(`No privacy request with id ${id}.`);
    if (!CANCELABLE.includes(row.status)) throw cannotCancel(row.status);
    const refusal = reasonCodeRefusal(row, reasonCode);
    if (refusal !== undefined) throw invalid(refusal);
    const code = reasonCode !== null && isCancelReasonCode(reasonCode) ? reasonCode : null;
    if (!(await cancelLocked(tx, services, row, reason, principalName(by.principal), code)))
      throw cannotCancel(row.status);
    await recordChange(tx, by, 'privacy-request.cancel', {
      privacy_request_id: id,
      reason_given: reason !== null,
      reason_code: code,
    });
  });
}

/**
 * Cancels every request still unverified `olderThanSeconds` after it was received (the sweep passes
 * unverifiedRequestSeconds, 24 hours); answers how many.
 */
export async function cancelUnverifiedRequests(
  services: Pick<Services, 'db' | 'keyring' | 'config' | 'queue'>,
  olderThanSeconds: number,
): Promise<number> {
  let total = 0;
  for (;;) {
    const canceled = await services.db.transaction(async (tx) => {
      const rows = await sweepRepository.lockUnverifiedOlderThan(tx, olderThanSeconds, 100);
      for (const row of rows)
        await cancelLocked(tx, services, row, UNVERIFIED_REASON, 'lethe', 'unverifiable');
      return rows.length;
    });
    total += canceled;
    if (canceled < 100) return total;
  }
}
