// Identity verification of public submissions: a 6-digit code mailed to the request's email, kept as an
// HMAC (a stolen table gives no code), living LETHE_IDENTITY_VERIFICATION_TTL_SECONDS, dead after 5 wrong
// tries; a new one at most once a minute and at most 3 times a request. 10 wrong codes over a request's
// life cancel it ("too many wrong codes"); per recipient, at most 5 code mails an hour (recipient.ts).
// The right code proves the email only: it moves from the request's unverified identities to its
// identity (what the rule run matches), and any other value given (a phone number) stays unverified; the
// request goes from identity_unverified to pending and on (pre-approval, approval) as an operator's
// request does. A wrong one changes nothing but the counts of tries. It never logs a code nor an identity.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import type { MessageKey, MessageValues } from '../i18n/catalogue.ts';
import { badRequest, forbidden, notFound, tooManyRequests } from '../errors.ts';
import { agentEmailVerified, agentOf } from '../agents/service.ts';
import { queueSubjectMessages } from '../privacy-requests/messages/subject-messages.ts';
import { admitVerified } from '../privacy-requests/intake.ts';
import { cancelLocked } from '../privacy-requests/cancel.ts';
import {
  type Identity,
  openIdentity,
  openUnverifiedIdentity,
  sealIdentity,
  sealUnverifiedIdentity,
} from '../privacy-requests/identity.ts';
import { privacyRequestRepository as requests, type RequestRow } from '../privacy-requests/repository.ts';
import { provedByCode } from '../privacy-requests/trusted-identity.ts';
import type { Services } from '../services.ts';
import { refuseAtMailCap, RetryLater } from '../outbox/recipient-caps.ts';
import { verificationRepository as repo } from './repository.ts';

export const MAX_WRONG_CODES = 5;
export const MAX_WRONG_CODES_PER_REQUEST = 10;
export const MAX_RESENDS = 3;
export const RESEND_INTERVAL_SECONDS = 60;
export const TOO_MANY_WRONG_CODES = 'too many wrong codes';

export { RetryLater };

function codeHash(services: Pick<Services, 'keyring'>, id: string, code: string): Buffer {
  return createHmac('sha256', services.keyring.secretKey('identity-verification'))
    .update(`${id}:${code}`)
    .digest();
}

/**
 * Makes a new code for the request and queues its message, in the caller's transaction; 429 (and the
 * caller's transaction rolls back) when the recipient has had 5 code mails in the last hour.
 */
export async function issueVerificationCode(
  tx: Queryable,
  services: Pick<Services, 'keyring' | 'config'>,
  row: RequestRow,
  email: string,
): Promise<void> {
  await refuseAtMailCap(tx, services.keyring, email);
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

/** A code refused (403), with the words the subject reads it in. */
const refusal = (message: string, key: MessageKey, values?: MessageValues) =>
  forbidden(message, { key, ...(values ? { values } : {}) });

function awaitingVerification(row: RequestRow | undefined, id: string): RequestRow {
  if (!row) throw notFound(`No privacy request with id ${id}.`, { key: 'refusal.unknown_request' });
  if (row.status !== 'identity_unverified')
    throw badRequest(`Request ${id} is not awaiting identity verification; it is ${row.status}.`, {
      key: 'refusal.not_awaiting_code',
    });
  return row;
}

/** What the subject gave: unverified values, and those of a request received before migration 015. */
function givenIdentity(services: Pick<Services, 'keyring'>, row: RequestRow): Identity {
  const legacy = row.identity_sealed ? openIdentity(services.keyring, row.id, row.identity_sealed) : {};
  return { ...legacy, ...openUnverifiedIdentity(services.keyring, row.id, row.unverified_identity_sealed) };
}

/** The request's identities once its email is proved: the email trusted, every other value still not. */
function provedEmail(services: Pick<Services, 'keyring'>, row: RequestRow) {
  const { trusted, unproven } = provedByCode(givenIdentity(services, row));
  return {
    identity_sealed: sealIdentity(services.keyring, row.id, trusted),
    unverified_identity_sealed:
      Object.keys(unproven).length > 0 ? sealUnverifiedIdentity(services.keyring, row.id, unproven) : null,
    recipient_index: null,
  };
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
        return refusal(
          'This code no longer works after too many wrong tries; ask for a new code.',
          'refusal.code_locked',
        );
      if (verification.expired)
        return refusal('This code has expired; ask for a new code.', 'refusal.code_expired');
      const expected = Buffer.from(verification.code_hash);
      const given = codeHash(this.#services, id, code);
      if (!timingSafeEqual(expected, given)) {
        // The try counts (it commits); the request itself does not change, unless it was its last.
        if (verification.wrong_codes_total + 1 >= MAX_WRONG_CODES_PER_REQUEST) {
          await cancelLocked(tx, this.#services, row, TOO_MANY_WRONG_CODES, 'lethe', 'unverifiable');
          return refusal(
            'Wrong code; too many wrong codes were given for this request, which is now canceled.',
            'refusal.code_canceled',
          );
        }
        await repo.countFailure(tx, id);
        const left = MAX_WRONG_CODES - verification.failed_attempts - 1;
        return left > 0
          ? refusal(`Wrong code; ${left} ${left === 1 ? 'try' : 'tries'} left.`, 'refusal.code_wrong', {
              left,
            })
          : refusal('Wrong code; this code no longer works. Ask for a new code.', 'refusal.code_spent');
      }
      await repo.remove(tx, id);
      // A request an agent made: the code proved the agent's email; the subject confirms next.
      const agent = await agentOf(tx, this.#services, id);
      if (agent) {
        await agentEmailVerified(tx, this.#services, row, agent);
        return undefined;
      }
      await admitVerified(tx, this.#services, row, {
        identity_verified_at: new Date(),
        ...provedEmail(this.#services, row),
      });
      return undefined;
    });
    if (outcome !== undefined) throw outcome;
    const row = await requests.find(this.#services.db, id);
    return { id, status: row?.status ?? 'pending' };
  }

  /** A new code (the old one dies), at most once a minute and 3 times a request. */
  async resend(id: string): Promise<{ id: string; status: string }> {
    await this.#services.db.transaction(async (tx) => {
      const row = awaitingVerification(await requests.lock(tx, id), id);
      const verification = await repo.lock(tx, id);
      if (verification && verification.resends >= MAX_RESENDS)
        throw tooManyRequests(
          `At most ${MAX_RESENDS} new codes can be sent for a request; submit a new request if none arrived.`,
          { key: 'refusal.resend_limit', values: { max: MAX_RESENDS } },
        );
      if (verification && verification.age_seconds < RESEND_INTERVAL_SECONDS) {
        const wait = Math.ceil(RESEND_INTERVAL_SECONDS - verification.age_seconds);
        throw new RetryLater(`A new code can be sent once a minute; retry in ${wait} seconds.`, wait, {
          key: 'refusal.resend_interval',
          values: { seconds: wait },
        });
      }
      const agent = await agentOf(tx, this.#services, id);
      if (agent?.row.email_verified_at)
        throw badRequest(
          `The agent of request ${id} is verified; the request awaits the subject's confirmation.`,
        );
      const email = agent?.email ?? givenIdentity(this.#services, row).email;
      if (!email) throw badRequest(`Request ${id} has no email address to send a code to.`);
      await issueVerificationCode(tx, this.#services, row, email);
    });
    return { id, status: 'identity_unverified' };
  }
}
