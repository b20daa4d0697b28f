// Identity verification of public submissions: a 6-digit code mailed to the request's email, kept as an
// HMAC (a stolen table gives no code), living LETHE_IDENTITY_VERIFICATION_TTL_SECONDS, dead after 5 wrong
// tries; a new one at most once a minute. The right code moves the request from identity_unverified to
// pending and on (pre-approval, approval) as an operator's request; a wrong one changes nothing but the
// count of tries. It never logs a code nor an identity.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { badRequest, DomainError, forbidden, notFound } from '../errors.ts';
import { queueSubjectMessages } from '../outbox/messages.ts';
import { admitVerifiedRequest } from '../privacy-requests/approval.ts';
import { openIdentity } from '../privacy-requests/identity.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository as requests, type RequestRow } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { verificationRepository as repo } from './repository.ts';

export const MAX_WRONG_CODES = 5;
export const RESEND_INTERVAL_SECONDS = 60;

export class RetryLater extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super('too_many_requests', message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function codeHash(services: Pick<Services, 'keyring'>, id: string, code: string): Buffer {
  return createHmac('sha256', services.keyring.secretKey('identity-verification'))
    .update(`${id}:${code}`)
    .digest();
}

/** Makes a new code for the request and queues its message, in the caller's transaction. */
export async function issueVerificationCode(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  row: RequestRow,
  email: string,
): Promise<void> {
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const ttl = services.config.identityVerificationTtlSeconds;
  await repo.replace(tx, row.id, codeHash(services, row.id, code), ttl);
  await queueSubjectMessages(tx, services, [
    {
      request: row,
      kind: 'verification_code',
      email,
      details: { code, codeTtlMinutes: Math.max(1, Math.round(ttl / 60)) },
    },
  ]);
}

function awaitingVerification(row: RequestRow | undefined, id: string): RequestRow {
  if (!row) throw notFound(`No privacy request with id ${id}.`);
  if (row.status !== 'identity_unverified')
    throw badRequest(`Request ${id} is not awaiting identity verification; it is ${row.status}.`);
  return row;
}

export class IdentityVerificationService {
  readonly #services: Services;

  constructor(services: Services) {
    this.#services = services;
  }

  /** The right code: pending (and on), answered as `{id, status}`. Wrong, expired or burnt: 403. */
  async verify(id: string, code: string): Promise<{ id: string; status: string }> {
    const outcome = await this.#services.db.transaction(async (tx) => {
      const row = awaitingVerification(await requests.lock(tx, id), id);
      const verification = await repo.lock(tx, id);
      if (!verification || verification.failed_attempts >= MAX_WRONG_CODES)
        return 'This code no longer works after too many wrong tries; ask for a new code.';
      if (verification.expired) return 'This code has expired; ask for a new code.';
      const expected = Buffer.from(verification.code_hash);
      const given = codeHash(this.#services, id, code);
      if (!timingSafeEqual(expected, given)) {
        // The try counts (it commits); the request itself does not change.
        await repo.countFailure(tx, id);
        const left = MAX_WRONG_CODES - verification.failed_attempts - 1;
        return left > 0
          ? `Wrong code; ${left} ${left === 1 ? 'try' : 'tries'} left.`
          : 'Wrong code; this code no longer works. Ask for a new code.';
      }
      await repo.remove(tx, id);
      await requests.transition(tx, id, 'identity_unverified', 'pending', {
        identity_verified_at: new Date(),
      });
      await logRepository.appendLog(tx, id, [
        {
          kind: 'transition',
          fromStatus: 'identity_unverified',
          toStatus: 'pending',
          message: 'identity verified with the mailed code',
        },
      ]);
      await admitVerifiedRequest(this.#services, tx, { ...row, status: 'pending' });
      await queueSubjectMessages(tx, this.#services, [{ request: row, kind: 'received' }]);
      return undefined;
    });
    if (outcome !== undefined) throw forbidden(outcome);
    const row = await requests.find(this.#services.db, id);
    return { id, status: row?.status ?? 'pending' };
  }

  /** A new code (the old one dies), at most once a minute. */
  async resend(id: string): Promise<{ id: string; status: string }> {
    await this.#services.db.transaction(async (tx) => {
      const row = awaitingVerification(await requests.lock(tx, id), id);
      const verification = await repo.lock(tx, id);
      if (verification && verification.age_seconds < RESEND_INTERVAL_SECONDS) {
        const wait = Math.ceil(RESEND_INTERVAL_SECONDS - verification.age_seconds);
        throw new RetryLater(`A new code can be sent once a minute; retry in ${wait} seconds.`, wait);
      }
      const email = row.identity_sealed
        ? openIdentity(this.#services.keyring, id, row.identity_sealed).email
        : undefined;
      if (!email) throw badRequest(`Request ${id} has no email address to send a code to.`);
      await issueVerificationCode(tx, this.#services, row, email);
    });
    return { id, status: 'identity_unverified' };
  }
}
