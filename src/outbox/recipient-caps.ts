// The caps per recipient: at most 5 mails an hour to one address, whoever caused them, and at most 3
// requests awaiting verification for it. A recipient is known by the HMAC of its lower-cased address
// (the blind-index idea of src/datastore/sealing.ts, under the caps' own key, `mail-recipient`), never by
// the address itself. Counted in PostgreSQL, under a transaction-scoped advisory lock
// on the recipient, so that several API processes (and concurrent calls) cannot both pass a cap.
//
// Every mail to a subject takes a slot of its recipient's hour when it is queued (takeMailSlots, from
// privacy-requests/messages/): at once while the hour has room, else the first moment it has, and the
// outbox holds the mail until then. So a mail the law requires (a denial, an extension, an appeal's
// outcome, a completion) is delayed at the cap, never dropped, while a mail the public can cause (a code,
// a confirm-agent link, an unverified request's receipt) is refused beforehand with a 429 (refuseAtMailCap)
// and costs nothing. A slot in the future counts against the hour it falls in, so the public is refused
// while delayed mails wait.
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
  return createHmac('sha256', keyring.secretKey('mail-recipient'))
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

  /**
   * Seconds until the hour has room again: until the fifth latest of its mails (slots to come included)
   * is an hour old.
   */
  async secondsUntilNextMail(tx: Queryable, index: Buffer): Promise<number> {
    const { rows } = await tx.query<{ wait: number }>(
      `SELECT ceil(extract(epoch FROM sent_at + interval '1 hour' - now()))::int AS wait
         FROM verification_code_mails WHERE recipient_index = $1
        ORDER BY sent_at DESC OFFSET $2 - 1 LIMIT 1`,
      [index, MAX_CODE_MAILS_PER_HOUR],
    );
    return Math.max(1, rows[0]?.wait ?? 1);
  },

  /** Serialises every cap decision about each of `indexes` (in one order, so two callers never deadlock). */
  async lockAll(tx: Queryable, indexes: readonly Buffer[]): Promise<void> {
    await tx.query(
      `SELECT pg_advisory_xact_lock(('x' || substr(encode(i, 'hex'), 1, 16))::bit(64)::bigint)
         FROM (SELECT DISTINCT i FROM unnest($1::bytea[]) AS u(i) ORDER BY i) AS sorted`,
      [indexes],
    );
  },

  /** The mails of the recipients of `indexes` in the hour up to now and after it (slots to come), and now. */
  async mailsFromLastHour(
    tx: Queryable,
    indexes: readonly Buffer[],
  ): Promise<{ now: Date; mails: { recipient_index: Buffer; sent_at: Date }[] }> {
    const { rows } = await tx.query<{ now: Date; recipient_index: Buffer | null; sent_at: Date | null }>(
      `SELECT now() AS now, m.recipient_index, m.sent_at
         FROM (SELECT 1) AS one
         LEFT JOIN verification_code_mails m
           ON m.recipient_index = ANY($1::bytea[]) AND m.sent_at > now() - interval '1 hour'`,
      [indexes],
    );
    return {
      now: (rows[0] as { now: Date }).now,
      mails: rows.flatMap((row) =>
        row.recipient_index && row.sent_at
          ? [{ recipient_index: row.recipient_index, sent_at: row.sent_at }]
          : [],
      ),
    };
  },

  async recordMails(tx: Queryable, slots: readonly { index: Buffer; at: Date }[]): Promise<void> {
    if (slots.length === 0) return;
    await tx.query(
      `INSERT INTO verification_code_mails (recipient_index, sent_at)
       SELECT * FROM unnest($1::bytea[], $2::timestamptz[])`,
      [slots.map((slot) => slot.index), slots.map((slot) => slot.at)],
    );
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
 * 429 when the recipient has had 5 mails in the last hour (or has slots taken to come), in the caller's
 * transaction, which keeps the lock: for a mail the public can cause, refused before it is made. The mail
 * itself takes its slot when it is queued (takeMailSlots). Answers the recipient's index.
 */
export async function refuseAtMailCap(tx: Queryable, keyring: Keyring, email: string): Promise<Buffer> {
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
  return recipient;
}

const HOUR_MS = 3_600_000;

/**
 * Takes a slot of its recipient's hour for each mail to `emails` (in order; an address may repeat): now
 * while the hour has fewer than 5 mails, else an hour after the fifth latest, so that no hour ever holds
 * more than 5. In three statements whatever the number of mails (the locks, the hour's mails, the new
 * slots). Answers each mail's slot: undefined for now, else the moment the outbox may send it. Without a
 * transaction (a caller preparing a statement) the locks hold for no time and two concurrent callers may
 * take one slot: a mail more in that hour, never one less.
 */
export async function takeMailSlots(
  tx: Queryable,
  keyring: Keyring,
  emails: readonly string[],
): Promise<(Date | undefined)[]> {
  if (emails.length === 0) return [];
  const indexes = emails.map((email) => recipientIndex(keyring, email));
  await recipientRepository.lockAll(tx, indexes);
  const { now, mails } = await recipientRepository.mailsFromLastHour(tx, indexes);
  const hours = new Map<string, number[]>();
  for (const mail of mails) {
    const key = mail.recipient_index.toString('hex');
    hours.set(key, [...(hours.get(key) ?? []), mail.sent_at.getTime()]);
  }
  const slots = indexes.map((index) => {
    const key = index.toString('hex');
    const hour = (hours.get(key) ?? []).sort((a, b) => b - a);
    const fifthLatest = hour[MAX_CODE_MAILS_PER_HOUR - 1];
    const at = fifthLatest === undefined ? now.getTime() : Math.max(now.getTime(), fifthLatest + HOUR_MS + 1);
    hours.set(key, [...hour, at]);
    return { index, at: new Date(at) };
  });
  await recipientRepository.recordMails(tx, slots);
  return slots.map((slot) => (slot.at.getTime() > now.getTime() ? slot.at : undefined));
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
