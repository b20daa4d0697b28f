// SQL for the privacy_requests table: requests, their status transitions and the sweep's reads. A move
// also completes the plan step and appends the log in the same statement (see move). Sealed identities go
// in and out as opaque bytes; only identity.ts seals and opens them.
import type { StoredInputs } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import { statusChangeCtes } from './lifecycle.ts';
import { LOG_COLUMNS, type LogEntry, logJson, logRepository, logRows } from './log-repository.ts';
import type { RequestRow } from './facts.ts';
import { CLOSED_STATUSES, type Status } from './statuses.ts';
import type { StepRow } from './step-repository.ts';
import { stuckCondition } from './stuck-repository.ts';

export type { RequestRow } from './facts.ts';

/** A request to store; what it keeps of its actions' inputs comes from their types (src/actions/registry.ts). */
export interface NewRequest extends StoredInputs {
  id: string;
  externalId: string | null;
  policyId: string;
  source: string | null;
  location: string | null;
  /** The language its subject reads, when made on the privacy center (src/i18n/). */
  language?: string;
  customFields: unknown[];
  /** Who made it when not the caller itself (an authorized agent); the caller's client id otherwise. */
  submittedBy?: string;
  identitySealed: Buffer;
  unverifiedIdentitySealed?: Buffer;
  recipientIndex?: Buffer;
}

export interface ListFilter {
  requestId?: string;
  status?: Status;
  externalId?: string;
  /** Only stuck requests (see stuckCondition), with this LETHE_STUCK_AFTER_SECONDS. */
  stuckAfterSeconds?: number;
}

/** Columns a transition may set, besides status. */
export type RequestChanges = Partial<
  Pick<
    RequestRow,
    | 'started_processing_at'
    | 'finished_processing_at'
    | 'reviewed_at'
    | 'reviewed_by'
    | 'finalized_at'
    | 'finalized_by'
    | 'paused_at'
    | 'paused_step'
    | 'error_reason'
    | 'next_step'
    | 'identity_verified_at'
    | 'cancel_reason'
    | 'cancel_reason_code'
    | 'canceled_at'
    | 'denial_reason'
    | 'duplicate_of'
  >
> & { identity_sealed?: Buffer; unverified_identity_sealed?: Buffer | null; recipient_index?: null };

const CHANGEABLE = [
  'started_processing_at',
  'finished_processing_at',
  'reviewed_at',
  'reviewed_by',
  'finalized_at',
  'finalized_by',
  'paused_at',
  'paused_step',
  'error_reason',
  'next_step',
  'identity_sealed',
  'unverified_identity_sealed',
  'recipient_index',
  'identity_verified_at',
  'cancel_reason',
  'cancel_reason_code',
  'canceled_at',
  'denial_reason',
  'duplicate_of',
] as const;

function filterClause(filter: ListFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter.requestId !== undefined) {
    params.push(filter.requestId);
    conditions.push(`id = $${params.length}`);
  }
  if (filter.status !== undefined) {
    params.push(filter.status);
    conditions.push(`status = $${params.length}`);
  }
  if (filter.externalId !== undefined) {
    params.push(filter.externalId);
    conditions.push(`external_id = $${params.length}`);
  }
  if (filter.stuckAfterSeconds !== undefined) {
    params.push(filter.stuckAfterSeconds);
    conditions.push(stuckCondition(`$${params.length}`));
  }
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

function transitionParts(id: string, from: Status, to: Status, changes: RequestChanges, atStep?: number) {
  const sets = ['status = $3', 'updated_at = now()'];
  const params: unknown[] = [id, from, to];
  for (const column of CHANGEABLE) {
    if (column in changes) {
      params.push(changes[column] ?? null);
      sets.push(`${column} = $${params.length}`);
    }
  }
  let guard = '';
  if (atStep !== undefined) {
    params.push(atStep);
    guard = ` AND next_step = $${params.length}`;
  }
  return { sets, params, guard };
}

/** A compare-and-set of a request (see privacyRequestRepository.move). */
export interface Move {
  id: string;
  from: Status;
  to: Status;
  changes?: RequestChanges;
  atStep?: number;
  completeStep?: number;
  entries: readonly LogEntry[];
}

/** The CTEs of a move (`moved` the request as it is afterwards), for a statement to end with its SELECT. */
export function moveStatement(move: Move): { sql: string; params: unknown[] } {
  // A status change always says so in the request's log: the owner of transitions makes sure of it.
  if (
    move.from !== move.to &&
    !move.entries.some((entry) => entry.kind === 'transition' && entry.toStatus === move.to)
  )
    throw new Error(`A move from ${move.from} to ${move.to} needs its transition log entry.`);
  const { sets, params, guard } = transitionParts(
    move.id,
    move.from,
    move.to,
    move.changes ?? {},
    move.atStep,
  );
  params.push(logJson(move.entries));
  const entriesParam = `$${params.length}`;
  let completion = '';
  if (move.completeStep !== undefined) {
    params.push(move.completeStep);
    completion = `, completed AS (
       UPDATE privacy_request_steps SET completed_at = now()
        WHERE privacy_request_id = $1 AND position = $${params.length} AND EXISTS (SELECT FROM moved))`;
  }
  const hooks = move.from === move.to ? '' : statusChangeCtes(move.from, move.to, 'moved', params);
  return {
    sql: `WITH moved AS (
       UPDATE privacy_requests SET ${sets.join(', ')} WHERE id = $1 AND status = $2${guard} RETURNING *)${completion},
     logged AS (
       INSERT INTO privacy_request_log ${LOG_COLUMNS}
       ${logRows('(SELECT id FROM moved)', entriesParam)})${hooks}`,
    params,
  };
}

/** jsonb_agg renders timestamps as text. */
export type DatesAsText = { completed_at: string | null; answered_at: string | null };

/** The plan of the request `r` as one JSON array, in step order. */
export const STEPS_OF_REQUEST = `COALESCE((SELECT jsonb_agg(s ORDER BY s.position) FROM privacy_request_steps s
                                     WHERE s.privacy_request_id = r.id), '[]'::jsonb)`;

export function withParsedSteps(
  found: (RequestRow & { steps: (Omit<StepRow, keyof DatesAsText> & DatesAsText)[] }) | undefined,
): { row: RequestRow; steps: StepRow[] } | undefined {
  if (!found) return undefined;
  const { steps, ...row } = found;
  return {
    row,
    steps: steps.map((step) => ({
      ...step,
      completed_at: step.completed_at === null ? null : new Date(step.completed_at),
      answered_at: step.answered_at === null ? null : new Date(step.answered_at),
    })),
  };
}

export const privacyRequestRepository = {
  /**
   * Inserts requests of one caller (null: the public, through the privacy center) in one statement, all in
   * `status`; answers the rows in the given order.
   */
  async insertMany(
    tx: Queryable,
    clientId: string | null,
    status: 'identity_unverified' | 'pending' | 'approved',
    identityTtlSeconds: number,
    requests: readonly NewRequest[],
  ): Promise<RequestRow[]> {
    const params: unknown[] = [
      clientId,
      status,
      identityTtlSeconds,
      JSON.stringify(
        requests.map((request) => ({
          id: request.id,
          external_id: request.externalId,
          policy_id: request.policyId,
          source: request.source,
          location: request.location,
          language: request.language ?? null,
          custom_fields: request.customFields,
          consent_preferences: request.consentPreferences ?? [],
          submitted_by: request.submittedBy ?? null,
          corrections_sealed: request.correctionsSealed?.toString('base64') ?? null,
          identity_sealed: request.identitySealed.toString('base64'),
          unverified_identity_sealed: request.unverifiedIdentitySealed?.toString('base64') ?? null,
          recipient_index: request.recipientIndex?.toString('base64') ?? null,
        })),
      ),
    ];
    const hooks = statusChangeCtes(null, status, 'moved', params);
    const { rows } = await tx.query<RequestRow>(
      `WITH moved AS (
       INSERT INTO privacy_requests (id, external_id, status, policy_id, client_id, submitted_by, origin, source,
                                     location, language, custom_fields, identity_sealed, unverified_identity_sealed,
                                     recipient_index, consent_preferences, corrections_sealed,
                                     identity_expires_at, requested_at)
       SELECT r->>'id', r->>'external_id', $2, r->>'policy_id', $1, COALESCE(r->>'submitted_by', $1), NULL, r->>'source', r->>'location', r->>'language',
              r->'custom_fields', decode(r->>'identity_sealed', 'base64'),
              decode(r->>'unverified_identity_sealed', 'base64'), decode(r->>'recipient_index', 'base64'),
              r->'consent_preferences', decode(r->>'corrections_sealed', 'base64'), now() + make_interval(secs => $3::int),
              -- A batch arrives at one instant; a microsecond apiece keeps it in submission order in
              -- newest-first lists (ties would fall back to the random id).
              now() + (n - 1) * interval '1 microsecond'
         FROM jsonb_array_elements($4::jsonb) WITH ORDINALITY AS item(r, n)
        ORDER BY n
       RETURNING *)${hooks}
       SELECT * FROM moved`,
      params,
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return requests.map((request) => byId.get(request.id) as RequestRow);
  },

  /** The stored language of each request of `ids` that has one (messages/subject-messages.ts). */
  async languagesOf(db: Queryable, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<{ id: string; language: string }>(
      'SELECT id, language FROM privacy_requests WHERE id = ANY($1::text[]) AND language IS NOT NULL',
      [ids],
    );
    return new Map(rows.map((row) => [row.id, row.language]));
  },

  async find(db: Queryable, id: string): Promise<RequestRow | undefined> {
    const { rows } = await db.query<RequestRow>('SELECT * FROM privacy_requests WHERE id = $1', [id]);
    return rows[0];
  },

  async lock(tx: Queryable, id: string): Promise<RequestRow | undefined> {
    const { rows } = await tx.query<RequestRow>('SELECT * FROM privacy_requests WHERE id = $1 FOR UPDATE', [
      id,
    ]);
    return rows[0];
  },

  async page(db: Queryable, filter: ListFilter, limit: number, offset: number): Promise<RequestRow[]> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<RequestRow>(
      `SELECT * FROM privacy_requests ${where} ORDER BY requested_at DESC, id
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return rows;
  },

  async count(db: Queryable, filter: ListFilter): Promise<number> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM privacy_requests ${where}`,
      params,
    );
    return rows[0]?.total ?? 0;
  },

  /**
   * The one way a request changes status outside a run's own moves: the compare-and-set (the request must
   * still be in `from`, and its cursor at `atStep` when given, so two workers never both advance it), the
   * given columns, and the transition's log entry, in one statement. Answers whether it moved; a request
   * that did not move gets no entry.
   */
  async transition(
    tx: Queryable,
    change: {
      id: string;
      from: Status;
      to: Status;
      changes?: RequestChanges;
      atStep?: number;
      message: string;
      error?: string;
      details?: Record<string, unknown>;
    },
  ): Promise<boolean> {
    const { message, error, details, ...move } = change;
    const entry: LogEntry = { kind: 'transition', fromStatus: change.from, toStatus: change.to, message };
    if (error !== undefined) entry.error = error;
    if (details !== undefined) entry.details = details;
    return (await this.move(tx, { ...move, entries: [entry] })) !== undefined;
  },

  /**
   * Moves every request of `moves` still in `from` to `to`, each with its own transition entry (its
   * message and details), in two statements; answers the ids that moved.
   */
  async transitionAll(
    tx: Queryable,
    moves: readonly { id: string; entry: LogEntry }[],
    from: Status,
    to: Status,
  ): Promise<string[]> {
    if (moves.length === 0) return [];
    const params: unknown[] = [moves.map((move) => move.id), from, to];
    const hooks = statusChangeCtes(from, to, 'moved', params);
    const { rows } = await tx.query<{ id: string }>(
      `WITH moved AS (
         UPDATE privacy_requests SET status = $3, updated_at = now() WHERE id = ANY($1) AND status = $2 RETURNING *)${hooks}
       SELECT id FROM moved`,
      params,
    );
    const moved = new Set(rows.map((row) => row.id));
    await logRepository.appendLogs(
      tx,
      moves.filter((move) => moved.has(move.id)),
    );
    return [...moved];
  },

  /**
   * `transition`, the completion of the step at `completeStep` and the log entries, in one statement (one
   * round trip, one commit): all of it applies only if the compare-and-set on status (and cursor, when
   * `atStep` is given) wins. Answers the request as it is afterwards, or undefined when the set lost.
   */
  async move(db: Queryable, move: Move): Promise<RequestRow | undefined> {
    const { sql, params } = moveStatement(move);
    const { rows } = await db.query<RequestRow>(`${sql} SELECT * FROM moved`, params);
    return rows[0];
  },

  /** Records who was told of a completed erasure (GDPR art. 19); not a status change. */
  async recordRecipientsNotified(tx: Queryable, id: string, recipients: readonly string[]): Promise<void> {
    await tx.query('UPDATE privacy_requests SET recipients_notified = $2::jsonb WHERE id = $1', [
      id,
      JSON.stringify(recipients),
    ]);
  },

  /** How many requests are in each status (statuses without any are absent). */
  async countByStatus(db: Queryable): Promise<{ status: Status; count: number }[]> {
    const { rows } = await db.query<{ status: Status; count: number }>(
      'SELECT status, count(*)::int AS count FROM privacy_requests GROUP BY status',
    );
    return rows;
  },

  /**
   * Open requests (not complete, denied nor canceled) by whole days left before their due date, computed as
   * the API's `days_left` is: floor((due_at - now) / 1 day).
   */
  async countOpenByDaysLeft(db: Queryable): Promise<{ days_left: number; count: number }[]> {
    const { rows } = await db.query<{ days_left: number; count: number }>(
      `SELECT floor(extract(epoch FROM (r.due_at - now())) / 86400)::int AS days_left,
              count(*)::int AS count
         FROM privacy_requests r
        WHERE r.status <> ALL($1::text[])
        GROUP BY 1`,
      [CLOSED_STATUSES],
    );
    return rows;
  },
};
