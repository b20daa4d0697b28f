// SQL of the outbox. Messages go in inside the caller's transaction; the delivery worker claims due ones
// with a lease (so a worker that dies mid-send leaves them to be retried, and two workers never send one
// message at the same time) and records each outcome.
import type { Queryable } from '../db/database.ts';

/**
 * Every kind of message, declared here once: the type, the API's enum and the check of each insert derive from
 * this list, and the table holds only a shape check (migration 025), so a new kind needs no migration.
 */
export const MESSAGE_KINDS = [
  'verification_code',
  'received',
  'denied',
  'completed',
  'canceled',
  'extended',
  'appeal_upheld',
  'appeal_reversed',
  'respondent_invite',
  'task_overdue',
  'agent_confirmation',
  'subject_note',
  'event_digest',
  'event_subscription_disabled',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
/** The kinds written for operators by the events (src/events/), not from a request's templates. */
export const OPERATOR_MESSAGE_KINDS = ['event_digest', 'event_subscription_disabled'] as const;
export type OperatorMessageKind = (typeof OPERATOR_MESSAGE_KINDS)[number];
/** The kinds privacy-requests/messages/ words from its templates. */
export type RequestMessageKind = Exclude<MessageKind, OperatorMessageKind>;
export const REQUEST_MESSAGE_KINDS = MESSAGE_KINDS.filter(
  (kind): kind is RequestMessageKind => !(OPERATOR_MESSAGE_KINDS as readonly string[]).includes(kind),
);
const KNOWN_KINDS: ReadonlySet<string> = new Set(MESSAGE_KINDS);

export type OutboxDeliveryState = 'pending' | 'retrying' | 'sent';
export const OUTBOX_DELIVERY_STATES: readonly OutboxDeliveryState[] = ['pending', 'retrying', 'sent'];

export interface NewMessage {
  id: string;
  privacyRequestId: string | null;
  kind: MessageKind;
  contentSealed: Buffer;
  /** When it may be sent, if not at once. */
  notBefore?: Date;
}

export interface MessageRow {
  id: string;
  privacy_request_id: string | null;
  kind: MessageKind;
  content_sealed: Uint8Array;
  state: 'pending' | 'sent';
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export interface OutboxFilter {
  privacyRequestId?: string;
  state?: 'pending' | 'sent';
}

function filterClause(filter: OutboxFilter): { where: string; params: unknown[] } {
  const params: unknown[] = [filter.privacyRequestId ?? null, filter.state ?? null];
  return {
    where: 'WHERE ($1::text IS NULL OR privacy_request_id = $1) AND ($2::text IS NULL OR state = $2)',
    params,
  };
}

/**
 * The INSERT of `outboxRepository.insert`, of the messages in the parameter `param` (`messagesValue`),
 * only when `condition` holds: for a statement that queues messages beside the change that causes them.
 */
export function insertMessagesSql(param: string, condition: string): string {
  return `INSERT INTO outbox_messages (id, privacy_request_id, kind, content_sealed, created_at, next_attempt_at)
       SELECT m->>'id', m->>'privacy_request_id', m->>'kind', decode(m->>'content', 'base64'),
              clock_timestamp() + (n - 1) * interval '1 microsecond',
              COALESCE((m->>'not_before')::timestamptz, now())
         FROM jsonb_array_elements(${param}::jsonb) WITH ORDINALITY AS item(m, n)
        WHERE ${condition} ORDER BY n`;
}

/** The messages as the JSON parameter of `insertMessagesSql`; a kind outside MESSAGE_KINDS is refused. */
export function messagesValue(messages: readonly NewMessage[]): string {
  return JSON.stringify(
    messages.map((message) => {
      if (!KNOWN_KINDS.has(message.kind)) throw new Error(`unknown outbox message kind "${message.kind}"`);
      return {
        id: message.id,
        privacy_request_id: message.privacyRequestId,
        kind: message.kind,
        content: message.contentSealed.toString('base64'),
        not_before: message.notBefore?.toISOString() ?? null,
      };
    }),
  );
}

export const outboxRepository = {
  async insert(tx: Queryable, messages: readonly NewMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await tx.query(insertMessagesSql('$1', 'true'), [messagesValue(messages)]);
  },

  /**
   * Takes up to `limit` pending messages due at `at`: each gets one more attempt and is hidden from other
   * claims for `leaseSeconds` (the time a send may take), after which an unrecorded attempt is retried.
   */
  async claimDue(db: Queryable, at: Date, leaseSeconds: number, limit: number): Promise<MessageRow[]> {
    const { rows } = await db.query<MessageRow>(
      `UPDATE outbox_messages SET attempts = attempts + 1,
              next_attempt_at = $1::timestamptz + make_interval(secs => $2::int)
        WHERE id IN (SELECT id FROM outbox_messages
                      WHERE state = 'pending' AND next_attempt_at <= $1::timestamptz
                      ORDER BY next_attempt_at, created_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING *`,
      [at, leaseSeconds, limit],
    );
    return rows.sort((a, b) => a.created_at.getTime() - b.created_at.getTime());
  },

  /** Marks the message delivered and replaces its content by `purgedSealed` (no bodies, recipient masked). */
  async markSent(tx: Queryable, id: string, purgedSealed: Buffer): Promise<void> {
    await tx.query(
      `UPDATE outbox_messages SET state = 'sent', sent_at = now(), last_error = NULL, content_sealed = $2
        WHERE id = $1`,
      [id, purgedSealed],
    );
  },

  async scheduleRetry(tx: Queryable, id: string, at: Date, delaySeconds: number, error: string) {
    await tx.query(
      `UPDATE outbox_messages SET next_attempt_at = $2::timestamptz + make_interval(secs => $3::int),
              last_error = $4
        WHERE id = $1 AND state = 'pending'`,
      [id, at, delaySeconds, error],
    );
  },

  /** Drops messages older than `seconds`: their sealed content holds an address and codes or links. */
  /**
   * Messages by delivery state for the metrics: `pending` (not tried yet), `retrying` (pending after at
   * least one failed try) and `sent` (until they are deleted by age). States without any are absent.
   */
  async countByDeliveryState(db: Queryable): Promise<{ state: OutboxDeliveryState; count: number }[]> {
    const { rows } = await db.query<{ state: OutboxDeliveryState; count: number }>(
      `SELECT CASE WHEN state = 'sent' THEN 'sent' WHEN attempts > 0 THEN 'retrying' ELSE 'pending' END AS state,
              count(*)::int AS count
         FROM outbox_messages
        GROUP BY 1`,
    );
    return rows;
  },

  async deleteOlderThan(db: Queryable, seconds: number): Promise<void> {
    await db.query('DELETE FROM outbox_messages WHERE created_at < now() - make_interval(secs => $1::int)', [
      seconds,
    ]);
  },

  async page(db: Queryable, filter: OutboxFilter, limit: number, offset: number): Promise<MessageRow[]> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<MessageRow>(
      `SELECT * FROM outbox_messages ${where} ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
      [...params, limit, offset],
    );
    return rows;
  },

  async count(db: Queryable, filter: OutboxFilter): Promise<number> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM outbox_messages ${where}`,
      params,
    );
    return rows[0]?.total ?? 0;
  },
};
