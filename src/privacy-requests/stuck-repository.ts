// SQL of the stuck flag (docs/human-steps.md): which requests made no progress for
// LETHE_STUCK_AFTER_SECONDS, were not acknowledged in the law's time, or meet a feature's stuck condition
// (an overdue task: src/privacy-requests/lifecycle.ts), and why. Computed at read time, never stored, so it
// cannot go stale.
import type { Queryable } from '../db/database.ts';
import { stuckConditions } from './lifecycle.ts';

/**
 * Why a request is stuck: `not_acknowledged` (its receipt not confirmed by acknowledge_due_at, CCPA regs
 * §7021(a)), `stalled` (approved or in_processing with no progress), or a feature's reason (`task_overdue`).
 */
export type StuckReason = 'not_acknowledged' | 'stalled' | (string & {});

/** Not acknowledged by the law's time (CCPA regs §7021(a)): stuck too, until the confirmation is delivered. */
const UNACKNOWLEDGED = `(acknowledged_at IS NULL AND acknowledge_due_at < now() AND status NOT IN ('complete', 'denied', 'canceled', 'error'))`;

/** Approved or in_processing with no progress (no move, which sets updated_at) for `seconds` (an SQL parameter). */
const stalled = (seconds: string) =>
  `(status IN ('approved', 'in_processing') AND updated_at < now() - make_interval(secs => ${seconds}::int))`;

/**
 * A stuck request (docs/human-steps.md): approved or in_processing with no progress (no move, which sets
 * updated_at) for `seconds` (an SQL parameter), not acknowledged in time, or meeting a registered stuck
 * condition.
 */
export function stuckCondition(seconds: string): string {
  const contributed = stuckConditions().map(({ when }) => ` OR ${when('privacy_requests.id')}`);
  return `(${stalled(seconds)} OR ${UNACKNOWLEDGED}${contributed.join('')})`;
}

/** The reason of a stuck request, the first that holds in this order; NULL when it is not stuck. */
function stuckReasonSql(seconds: string): string {
  const contributed = stuckConditions().map(
    ({ reason, when }) => ` WHEN ${when('privacy_requests.id')} THEN '${reason.replaceAll("'", "''")}'`,
  );
  return `CASE WHEN ${UNACKNOWLEDGED} THEN 'not_acknowledged' WHEN ${stalled(seconds)} THEN 'stalled'${contributed.join('')} END`;
}

export const stuckRepository = {
  /** Which of `ids` are stuck, each with why. */
  async stuckAmong(
    db: Queryable,
    ids: readonly string[],
    seconds: number,
  ): Promise<Map<string, StuckReason>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<{ id: string; reason: string }>(
      `SELECT id, ${stuckReasonSql('$2')} AS reason FROM privacy_requests
        WHERE id = ANY($1) AND ${stuckCondition('$2')}`,
      [ids, seconds],
    );
    return new Map(rows.map((row) => [row.id, row.reason]));
  },

  async countStuck(db: Queryable, seconds: number): Promise<number> {
    const { rows } = await db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM privacy_requests WHERE ${stuckCondition('$1')}`,
      [seconds],
    );
    return rows[0]?.count ?? 0;
  },
};
