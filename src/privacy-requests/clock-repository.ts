// SQL for the clock columns of privacy_requests (migration 018): the jurisdiction and due date set at
// receipt, the acknowledgement, the one extension and the denial's reason. Statuses never change here;
// the rules that decide these values are in src/deadlines/.
import { actionTypesIn } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import type { RequestRow } from './repository.ts';

export interface PolicyClock {
  execution_timeframe: number;
  jurisdiction: string | null;
  /** The policy records consent: its requests are opt-outs, due sooner (src/deadlines/clock.ts). */
  opt_out: boolean;
}

export interface Deadline {
  id: string;
  jurisdiction: string | null;
  dueAt: Date;
  acknowledgeDueAt: Date | null;
}

export const clockRepository = {
  /** The timeframe and jurisdiction of each policy, for the due dates of requests made under it. */
  async policyClocks(db: Queryable, policyIds: readonly string[]): Promise<Map<string, PolicyClock>> {
    const { rows } = await db.query<PolicyClock & { id: string }>(
      `SELECT id, execution_timeframe, jurisdiction,
              EXISTS (SELECT 1 FROM rules WHERE rules.policy_id = policies.id AND rules.action_type = ANY($2)) AS opt_out
         FROM policies WHERE id = ANY($1)`,
      [[...new Set(policyIds)], actionTypesIn('opt_out')],
    );
    return new Map(rows.map(({ id, ...clock }) => [id, clock]));
  },

  /** Sets each request's jurisdiction and due date, in one statement. */
  async setDeadlines(tx: Queryable, deadlines: readonly Deadline[]): Promise<void> {
    if (deadlines.length === 0) return;
    await tx.query(
      `UPDATE privacy_requests r SET jurisdiction = d.jurisdiction, due_at = d.due_at,
              acknowledge_due_at = d.acknowledge_due_at
         FROM jsonb_to_recordset($1::jsonb)
              AS d(id text, jurisdiction text, due_at timestamptz, acknowledge_due_at timestamptz)
        WHERE r.id = d.id`,
      [
        JSON.stringify(
          deadlines.map((deadline) => ({
            id: deadline.id,
            jurisdiction: deadline.jurisdiction,
            due_at: deadline.dueAt.toISOString(),
            acknowledge_due_at: deadline.acknowledgeDueAt?.toISOString() ?? null,
          })),
        ),
      ],
    );
  },

  /** Records the delivery of the "request received" message as the request's acknowledgement (the first). */
  async acknowledge(tx: Queryable, id: string, at: Date): Promise<void> {
    await tx.query(
      'UPDATE privacy_requests SET acknowledged_at = $2 WHERE id = $1 AND acknowledged_at IS NULL',
      [id, at],
    );
  },

  /** The one extension: a compare-and-set on its absence; answers whether it took. */
  async extend(tx: Queryable, id: string, dueAt: Date, reason: string, at: Date): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE privacy_requests SET due_at = $2, extended_at = $4, extension_reason = $3, updated_at = now()
        WHERE id = $1 AND extended_at IS NULL`,
      [id, dueAt, reason, at],
    );
    return rowCount === 1;
  },

  /** Serialises the duplicate check of one identity until the caller's transaction ends. */
  async lockIdentity(tx: Queryable, index: Buffer): Promise<void> {
    await tx.query(
      "SELECT pg_advisory_xact_lock(('x' || substr(encode($1::bytea, 'hex'), 1, 16))::bit(64)::bigint)",
      [index],
    );
  },

  /**
   * `lockIdentity` for a batch, in one statement: the identities are locked in byte order, so two batches
   * sharing identities take them in the same order and cannot deadlock on each other.
   */
  async lockIdentities(tx: Queryable, indexes: readonly Buffer[]): Promise<void> {
    await tx.query(
      `SELECT pg_advisory_xact_lock(('x' || substr(encode(ordered.ix, 'hex'), 1, 16))::bit(64)::bigint)
         FROM (SELECT DISTINCT ix FROM unnest($1::bytea[]) AS ix ORDER BY ix) AS ordered`,
      [[...indexes]],
    );
  },

  /**
   * `setIdentityIndex` and `completedAccessInYear` for a batch, in one statement: sets each request's
   * identity index and answers, by index (hex), the identity's completed access requests within the last
   * 12 months (the batch's own requests are not complete, so setting their index first changes no count).
   */
  async indexAndCountCompletedAccess(
    tx: Queryable,
    requests: readonly { id: string; index: Buffer }[],
  ): Promise<Map<string, number>> {
    const { rows } = await tx.query<{ ix: string; n: number }>(
      `WITH indexed AS (
         UPDATE privacy_requests p SET identity_index = given.ix
           FROM unnest($1::text[], $2::bytea[]) AS given(id, ix)
          WHERE p.id = given.id)
       SELECT encode(wanted.ix, 'hex') AS ix,
              (SELECT count(*)::int FROM privacy_requests r
                WHERE r.identity_index = wanted.ix AND r.status = 'complete'
                  AND r.finished_processing_at > now() - interval '12 months'
                  AND EXISTS (SELECT FROM rules WHERE rules.policy_id = r.policy_id
                                                  AND rules.action_type = ANY($3))) AS n
         FROM (SELECT DISTINCT ix FROM unnest($2::bytea[]) AS ix) AS wanted`,
      [
        requests.map((request) => request.id),
        requests.map((request) => request.index),
        actionTypesIn('know'),
      ],
    );
    return new Map(rows.map((row) => [row.ix, row.n]));
  },

  async setIdentityIndex(tx: Queryable, id: string, index: Buffer): Promise<void> {
    await tx.query('UPDATE privacy_requests SET identity_index = $2 WHERE id = $1', [id, index]);
  },

  /** The oldest other open, trusted request of the same identity and policy. */
  async openDuplicateOf(
    tx: Queryable,
    request: { id: string; policyId: string; index: Buffer },
  ): Promise<string | undefined> {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM privacy_requests
        WHERE identity_index = $1 AND policy_id = $2 AND id <> $3
          AND status NOT IN ('identity_unverified', 'complete', 'denied', 'canceled')
        ORDER BY requested_at LIMIT 1`,
      [request.index, request.policyId, request.id],
    );
    return rows[0]?.id;
  },

  /** Completed access requests of the identity within the last 12 months. */
  async completedAccessInYear(tx: Queryable, index: Buffer): Promise<number> {
    const { rows } = await tx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM privacy_requests r
        WHERE r.identity_index = $1 AND r.status = 'complete'
          AND r.finished_processing_at > now() - interval '12 months'
          AND EXISTS (SELECT FROM rules WHERE rules.policy_id = r.policy_id AND rules.action_type = ANY($2))`,
      [index, actionTypesIn('know')],
    );
    return rows[0]?.n ?? 0;
  },

  async flagExcessive(tx: Queryable, ids: readonly string[]): Promise<void> {
    await tx.query('UPDATE privacy_requests SET excessive = true WHERE id = ANY($1::text[])', [[...ids]]);
  },

  /**
   * LETHE_REQUEST_RETENTION_DAYS: purges the identity values of requests closed before `closedBefore` (the
   * sealed identities, the blind indexes, the appeal's statement); the record itself stays. Answers how many.
   */
  async purgeClosedBefore(db: Queryable, closedBefore: Date): Promise<number> {
    const { rows } = await db.query<{ n: number }>(
      `WITH purged AS (
         UPDATE privacy_requests
            SET identity_sealed = NULL, unverified_identity_sealed = NULL, recipient_index = NULL,
                identity_index = NULL, identity_purged_at = COALESCE(identity_purged_at, now()), updated_at = now()
          WHERE status IN ('complete', 'denied', 'canceled')
            AND COALESCE(finalized_at, canceled_at, finished_processing_at, updated_at) < $1
            AND (identity_sealed IS NOT NULL OR unverified_identity_sealed IS NOT NULL
                 OR recipient_index IS NOT NULL OR identity_index IS NOT NULL
                 OR EXISTS (SELECT FROM privacy_request_appeals a
                             WHERE a.privacy_request_id = privacy_requests.id AND a.statement IS NOT NULL))
          RETURNING id),
       statements AS (
         UPDATE privacy_request_appeals SET statement = NULL, token_hash = NULL
          WHERE privacy_request_id IN (SELECT id FROM purged))
       SELECT count(*)::int AS n FROM purged`,
      [closedBefore],
    );
    return rows[0]?.n ?? 0;
  },

  /** The requests of `ids` as they are now, in that order (admission may have canceled or flagged them). */
  async current(db: Queryable, ids: readonly string[]): Promise<RequestRow[]> {
    const { rows } = await db.query<RequestRow>('SELECT * FROM privacy_requests WHERE id = ANY($1)', [
      [...ids],
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  },

  /** Records a refusal that came after the law's time to refuse (GDPR art. 12(4)). */
  async markRefusedLate(tx: Queryable, id: string): Promise<void> {
    await tx.query('UPDATE privacy_requests SET refused_late = true WHERE id = $1', [id]);
  },

  /** Moves the request's due date (an appeal reversed: the request runs by the appeal's own deadline). */
  async setDueDate(tx: Queryable, id: string, dueAt: Date): Promise<void> {
    await tx.query('UPDATE privacy_requests SET due_at = $2 WHERE id = $1', [id, dueAt]);
  },

  /** Keeps the request's identities at least until `until` (past the TTL of LETHE_DEFAULT_TTL_SECONDS). */
  async keepIdentityUntil(tx: Queryable, id: string, until: Date): Promise<void> {
    await tx.query(
      'UPDATE privacy_requests SET identity_expires_at = GREATEST(identity_expires_at, $2) WHERE id = $1',
      [id, until],
    );
  },
};
