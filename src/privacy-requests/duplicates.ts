// Duplicates and excess (LETHE_DUPLICATE_DETECTION; docs/deadlines.md). A request is known by the HMAC
// of its trusted email (never the address) once it is trusted: verified on the public side, or made by an
// operator. A checked request whose identity and policy equal another open trusted request's is canceled
// with `duplicate_of`; an unverified submission is never trusted, so it can neither cancel nor be counted.
// A third completed access request within 12 months is flagged `excessive`, never refused: a person decides.
import { createHmac } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { queueSubjectMessages } from './messages/subject-messages.ts';
import type { Services } from '../services.ts';
import { clockRepository } from './clock-repository.ts';
import { openIdentity } from './identity.ts';
import { privacyRequestRepository as repo, type RequestRow } from './repository.ts';

export type DuplicateDetection = Config['duplicateDetection'];

/** Completed access requests within 12 months after which the next one is flagged. */
const EXCESS_AFTER = 2;

function identityIndex(keyring: Keyring, email: string): Buffer {
  return createHmac('sha256', keyring.secretKey('request-identity-index'))
    .update(`email:${email.trim().toLowerCase()}`)
    .digest();
}

function isChecked(detection: DuplicateDetection, row: Pick<RequestRow, 'client_id'>): boolean {
  return detection === 'all' || (detection === 'public' && row.client_id === null);
}

/**
 * Indexes each newly trusted pending request, cancels the checked ones that duplicate an open request and
 * flags excess; answers the requests to admit (those not canceled). Runs in the caller's transaction.
 */
export async function screenTrusted(
  tx: Queryable,
  services: Pick<Services, 'config' | 'keyring'>,
  rows: readonly RequestRow[],
): Promise<RequestRow[]> {
  return rows.some((row) => isChecked(services.config.duplicateDetection, row))
    ? screenOneByOne(tx, services, rows)
    : indexUnchecked(tx, services, rows);
}

/**
 * A batch of which none is checked (an operator's, under the default): nothing can be canceled, so the
 * whole batch is locked, indexed and counted for excess in a fixed number of statements, whatever its size.
 */
async function indexUnchecked(
  tx: Queryable,
  services: Pick<Services, 'keyring'>,
  rows: readonly RequestRow[],
): Promise<RequestRow[]> {
  const indexed = rows.flatMap((row) => {
    const email = row.identity_sealed
      ? openIdentity(services.keyring, row.id, row.identity_sealed).email
      : undefined;
    return email ? [{ id: row.id, index: identityIndex(services.keyring, email) }] : [];
  });
  if (indexed.length === 0) return [...rows];
  await clockRepository.lockIdentities(
    tx,
    indexed.map((request) => request.index),
  );
  const completed = await clockRepository.indexAndCountCompletedAccess(tx, indexed);
  const excessive = new Set(
    indexed
      .filter((request) => (completed.get(request.index.toString('hex')) ?? 0) >= EXCESS_AFTER)
      .map((request) => request.id),
  );
  if (excessive.size > 0) await clockRepository.flagExcessive(tx, [...excessive]);
  return rows.map((row) => (excessive.has(row.id) ? { ...row, excessive: true } : row));
}

/**
 * A batch with checked requests, one request after the other: a request may repeat one indexed earlier in
 * the same batch.
 */
async function screenOneByOne(
  tx: Queryable,
  services: Pick<Services, 'config' | 'keyring'>,
  rows: readonly RequestRow[],
): Promise<RequestRow[]> {
  const admitted: RequestRow[] = [];
  for (const row of rows) {
    const email = row.identity_sealed
      ? openIdentity(services.keyring, row.id, row.identity_sealed).email
      : undefined;
    if (!email) {
      admitted.push(row);
      continue;
    }
    const index = identityIndex(services.keyring, email);
    await clockRepository.lockIdentity(tx, index);
    await clockRepository.setIdentityIndex(tx, row.id, index);
    const original = isChecked(services.config.duplicateDetection, row)
      ? await clockRepository.openDuplicateOf(tx, { id: row.id, policyId: row.policy_id, index })
      : undefined;
    if (original) {
      await cancelAsDuplicate(tx, services, row, original);
      continue;
    }
    if ((await clockRepository.completedAccessInYear(tx, index)) >= EXCESS_AFTER) {
      await clockRepository.flagExcessive(tx, [row.id]);
      admitted.push({ ...row, excessive: true });
    } else admitted.push(row);
  }
  return admitted;
}

async function cancelAsDuplicate(
  tx: Queryable,
  services: Pick<Services, 'config' | 'keyring'>,
  row: RequestRow,
  original: string,
): Promise<void> {
  const now = new Date();
  const reason = `it repeats your open request ${original}, which we are already answering`;
  await repo.transition(tx, {
    id: row.id,
    from: 'pending',
    to: 'canceled',
    changes: {
      canceled_at: now,
      cancel_reason: reason,
      cancel_reason_code: 'duplicate',
      finalized_at: now,
      duplicate_of: original,
    },
    message: `canceled as a duplicate of ${original}`,
  });
  await queueSubjectMessages(tx, services, [{ request: row, kind: 'canceled', details: { reason } }]);
}
