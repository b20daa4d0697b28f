// The caps per recipient of verification codes: at most 5 code mails an hour to one address and at most
// 3 requests awaiting verification for it. A recipient is known by the HMAC of its lower-cased address
// (the blind-index idea of src/datastore/sealing.ts, under the identity-verification key and its own
// prefix), never by the address itself. Counted in PostgreSQL, under a transaction-scoped advisory lock
// on the recipient, so that several API processes (and concurrent calls) cannot both pass a cap.
import { createHmac } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { DomainError, tooManyRequests, type Wording } from '../errors.ts';

export const MAX_CODE_MAILS_PER_HOUR = 5;
export const MAX_OPEN_UNVERIFIED = 3;

/** A 429 that tells when to come back (the routes set Retry-After from it). */
export class RetryLater extends DomainError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, wording?: Wording) {
    super('too_many_requests', message, wording);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function recipientIndex(keyring: Keyring, email: string): Buffer {
  return createHmac('sha256', keyring.secretKey('identity-verification'))
    .update(`recipient:${email.trim().toLowerCase()}`)
    .digest();
}

export const recipientRepository = {
  /** Serialises every cap decision about one recipient until the caller's transaction ends. */
  async lock(tx: Queryable, index: Buffer): Promise<void> {
    await tx.query(
      "SELECT pg_advisory_xact_lock(('x' || substr(encode($1::bytea, 'hex'), 1, 16))::bit(64)::bigint)",
      [index],
    );
  },

  /** Code mails to the recipient in the last hour (older rows of it are dropped on the way). */
  async mailsInLastHour(tx: Queryable, index: Buffer): Promise<number> {
    await tx.query(
      "DELETE FROM verification_code_mails WHERE recipient_index = $1 AND sent_at <= now() - interval '1 hour'",
      [index],
    );
    const { rows } = await tx.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM verification_code_mails WHERE recipient_index = $1',
      [index],
    );
    return rows[0]?.count ?? 0;
  },

  /** Seconds until the oldest mail of the last hour leaves it (the wait before another may go). */
  async secondsUntilNextMail(tx: Queryable, index: Buffer): Promise<number> {
    const { rows } = await tx.query<{ wait: number }>(
      `SELECT ceil(extract(epoch FROM min(sent_at) + interval '1 hour' - now()))::int AS wait
         FROM verification_code_mails WHERE recipient_index = $1`,
      [index],
    );
    return Math.max(1, rows[0]?.wait ?? 1);
  },

  async recordMail(tx: Queryable, index: Buffer): Promise<void> {
    await tx.query('INSERT INTO verification_code_mails (recipient_index) VALUES ($1)', [index]);
  },

  /** Requests awaiting verification whose code goes to the recipient. */
  async openUnverified(tx: Queryable, index: Buffer): Promise<number> {
    const { rows } = await tx.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM privacy_requests
        WHERE status = 'identity_unverified' AND recipient_index = $1`,
      [index],
    );
    return rows[0]?.count ?? 0;
  },
};

/**
 * Takes one of the recipient's 5 mails of the hour, in the caller's transaction (which rolls back, sending
 * nothing, on the 429). Answers the recipient's index.
 */
export async function reserveCodeMail(tx: Queryable, keyring: Keyring, email: string): Promise<Buffer> {
  const recipient = recipientIndex(keyring, email);
  await recipientRepository.lock(tx, recipient);
  if ((await recipientRepository.mailsInLastHour(tx, recipient)) >= MAX_CODE_MAILS_PER_HOUR) {
    const wait = await recipientRepository.secondsUntilNextMail(tx, recipient);
    throw new RetryLater(
      `Too many messages were sent to this address in the last hour; retry in ${wait} seconds.`,
      wait,
      { key: 'refusal.mails_per_hour', values: { seconds: wait } },
    );
  }
  await recipientRepository.recordMail(tx, recipient);
  return recipient;
}

/** 429 when the recipient already has 3 requests awaiting verification (the caller's transaction holds the lock). */
export async function assertFewOpenRequests(tx: Queryable, keyring: Keyring, email: string): Promise<Buffer> {
  const recipient = recipientIndex(keyring, email);
  await recipientRepository.lock(tx, recipient);
  if ((await recipientRepository.openUnverified(tx, recipient)) >= MAX_OPEN_UNVERIFIED)
    throw tooManyRequests(
      `This address already has ${MAX_OPEN_UNVERIFIED} requests awaiting verification; verify one of them (the codes were mailed) or wait until they are canceled.`,
      { key: 'refusal.open_requests', values: { max: MAX_OPEN_UNVERIFIED } },
    );
  return recipient;
}
