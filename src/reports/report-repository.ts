// The reads of the records (CCPA regs §7101, §7102): requests by time of receipt, with what a record
// keeps (action, jurisdiction, status, decision, extension, appeal, the manner it came in, the denial's
// reason) and never an identity column. Reads only: the privacy-requests room owns these tables and writes
// them (and the operators room the operators, read here only to tell an operator's request from an API
// client's).
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
  location: string | null;
  manner: Manner;
  denial_reason: string | null;
  refused_late: boolean;
  cancel_reason_code: string | null;
}

/** How a request was made (CCPA regs §7101(b)): on the privacy center, by an authorized agent, by an operator, by an API client. */
export type Manner = 'public' | 'agent' | 'operator' | 'api';

export interface YearFigures {
  action_type: string;
  received: number;
  complied: number;
  denied: number;
  median_days: number | null;
  mean_days: number | null;
}

/** One action type's figures as the categories are summed from them (records.ts). */
export interface ActionTypeFigures extends YearFigures {
  /** Canceled with reason code `unverifiable` (by an operator, or by Lethe when no code came). */
  closed_unverifiable: number;
  /** Canceled by an operator (a person or an API client), whatever the code. */
  operator_canceled: number;
  /** Days to respond of each complied or denied request, for the categories' median and mean. */
  days: number[];
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

/**
 * The manner a request came in: no client is the public side (an agent when one acts for the subject); a
 * client id that is an operator's name is an operator (the console, or their sign-in's token), any other
 * client an API client. Derived at read time from what intake already stores.
 */
const MANNER = `CASE
  WHEN r.client_id IS NULL THEN
    CASE WHEN EXISTS (SELECT FROM privacy_request_agents g WHERE g.privacy_request_id = r.id) THEN 'agent'
         ELSE 'public' END
  WHEN EXISTS (SELECT FROM operators o WHERE o.username = r.client_id) THEN 'operator'
  ELSE 'api' END`;

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
              r.duplicate_of, r.excessive, r.location, ${MANNER} AS manner, r.denial_reason, r.refused_late,
              r.cancel_reason_code
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

  /**
   * §7102's figures for requests received in [from, to) (and under `jurisdiction` when given), per action
   * type, with the days to respond of each answered request so that categories can be summed.
   */
  async figures(
    db: Queryable,
    from: Date,
    to: Date,
    jurisdiction: string | null = null,
  ): Promise<ActionTypeFigures[]> {
    const { rows } = await db.query<ActionTypeFigures>(
      `WITH records AS (
         SELECT ${actionType()} AS action_type, r.status, r.cancel_reason_code,
                -- Lethe's own cancels (the sweep, too many wrong codes) are by 'lethe'; a duplicate's by nobody.
                r.status = 'canceled' AND r.finalized_by IS NOT NULL AND r.finalized_by <> 'lethe'
                  AS operator_canceled,
                extract(epoch FROM (${DECIDED_AT}) - r.requested_at) / 86400 AS days
           FROM privacy_requests r
          WHERE r.requested_at >= $1 AND r.requested_at < $2
            AND ($3::text IS NULL OR r.jurisdiction = $3::text))
       SELECT action_type,
              count(*)::int AS received,
              (count(*) FILTER (WHERE status = 'complete'))::int AS complied,
              (count(*) FILTER (WHERE status = 'denied'))::int AS denied,
              (count(*) FILTER (WHERE status = 'canceled' AND cancel_reason_code = 'unverifiable'))::int
                AS closed_unverifiable,
              (count(*) FILTER (WHERE operator_canceled))::int AS operator_canceled,
              (percentile_cont(0.5) WITHIN GROUP (ORDER BY days)
                 FILTER (WHERE status IN ('complete', 'denied')))::float8 AS median_days,
              (avg(days) FILTER (WHERE status IN ('complete', 'denied')))::float8 AS mean_days,
              COALESCE(array_agg(days::float8 ORDER BY days) FILTER (WHERE status IN ('complete', 'denied')),
                       '{}') AS days
         FROM records GROUP BY action_type ORDER BY action_type`,
      [from, to, jurisdiction],
    );
    return rows;
  },
};
