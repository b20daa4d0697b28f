// The reads of the records (CCPA regs §7101, §7102): requests by time of receipt, with what a record
// keeps (action, jurisdiction, status, decision, extension, appeal) and never an identity column. Reads
// only: the privacy-requests room owns these tables and writes them.
import { weightiestActionSql } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';

export interface RecordRow {
  id: string;
  requested_at: Date;
  action_type: string;
  jurisdiction: string | null;
  status: string;
  decided_at: Date | null;
  due_at: Date | null;
  extended_at: Date | null;
  appeal_status: string | null;
  duplicate_of: string | null;
  excessive: boolean;
}

export interface YearFigures {
  action_type: string;
  received: number;
  complied: number;
  denied: number;
  median_days: number | null;
  mean_days: number | null;
}

/**
 * The request's action: the weightiest action type its policy has a rule of (src/actions/registry.ts's
 * rank: erasure, access, update, consent), else other.
 */
const actionType = () =>
  weightiestActionSql(
    (name) =>
      `EXISTS (SELECT FROM rules WHERE rules.policy_id = r.policy_id AND rules.action_type = '${name}')`,
    "'other'",
  );

/** When the request was answered: its denial or cancel (finalized_at), else the end of its run if complete. */
const DECIDED_AT = `CASE WHEN r.status IN ('complete', 'denied', 'canceled')
  THEN COALESCE(r.finalized_at, r.finished_processing_at, r.canceled_at) END`;

export const reportRepository = {
  /**
   * One page of the records received in [from, to), oldest first, after the request `afterId`. The cursor is
   * the id, its time read in SQL: a JavaScript Date would drop the microseconds that order one batch.
   */
  async recordsPage(
    db: Queryable,
    from: Date,
    to: Date,
    afterId: string | null,
    limit: number,
  ): Promise<RecordRow[]> {
    const { rows } = await db.query<RecordRow>(
      `SELECT r.id, r.requested_at, ${actionType()} AS action_type, r.jurisdiction, r.status,
              ${DECIDED_AT} AS decided_at, r.due_at, r.extended_at, a.status AS appeal_status,
              r.duplicate_of, r.excessive
         FROM privacy_requests r LEFT JOIN privacy_request_appeals a ON a.privacy_request_id = r.id
        WHERE r.requested_at >= $1 AND r.requested_at < $2
          AND ($3::text IS NULL OR (r.requested_at, r.id) >
               ((SELECT requested_at FROM privacy_requests WHERE id = $3::text), $3::text))
        ORDER BY r.requested_at, r.id
        LIMIT $4`,
      [from, to, afterId, limit],
    );
    return rows;
  },

  /** §7102's figures for requests received in [from, to), per action type. */
  async figures(db: Queryable, from: Date, to: Date): Promise<YearFigures[]> {
    const { rows } = await db.query<YearFigures>(
      `WITH records AS (
         SELECT ${actionType()} AS action_type, r.status,
                extract(epoch FROM (${DECIDED_AT}) - r.requested_at) / 86400 AS days
           FROM privacy_requests r
          WHERE r.requested_at >= $1 AND r.requested_at < $2)
       SELECT action_type,
              count(*)::int AS received,
              (count(*) FILTER (WHERE status = 'complete'))::int AS complied,
              (count(*) FILTER (WHERE status = 'denied'))::int AS denied,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY days)
                 FILTER (WHERE status IN ('complete', 'denied')))::float8 AS median_days,
              (avg(days) FILTER (WHERE status IN ('complete', 'denied')))::float8 AS mean_days
         FROM records GROUP BY action_type ORDER BY action_type`,
      [from, to],
    );
    return rows;
  },
};
