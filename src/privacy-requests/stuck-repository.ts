// SQL of the stuck flag (docs/human-steps.md): which requests made no progress for
// LETHE_STUCK_AFTER_SECONDS or meet a feature's stuck condition (an overdue task: src/privacy-requests/
// lifecycle.ts). Computed at read time, never stored, so it cannot go stale.
import type { Queryable } from '../db/database.ts';
import { hooksOf } from './lifecycle.ts';

/**
 * A stuck request (docs/human-steps.md): approved or in_processing with no progress (no move, which sets
 * updated_at) for `seconds` (an SQL parameter), or meeting a registered stuck condition.
 */
export function stuckCondition(seconds: string): string {
  const contributed = hooksOf('stuckWhen').map((condition) => ` OR ${condition('privacy_requests.id')}`);
  // Not acknowledged by the law's time (CCPA regs §7021(a)): stuck too, until the confirmation is delivered.
  const unacknowledged = ` OR (acknowledged_at IS NULL AND acknowledge_due_at < now() AND status NOT IN ('complete', 'denied', 'canceled', 'error'))`;
  return `((status IN ('approved', 'in_processing') AND updated_at < now() - make_interval(secs => ${seconds}::int))${unacknowledged}${contributed.join('')})`;
}

export const stuckRepository = {
  /** Which of `ids` are stuck. */
  async stuckAmong(db: Queryable, ids: readonly string[], seconds: number): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM privacy_requests WHERE id = ANY($1) AND ${stuckCondition('$2')}`,
      [ids, seconds],
    );
    return new Set(rows.map((row) => row.id));
  },

  async countStuck(db: Queryable, seconds: number): Promise<number> {
    const { rows } = await db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM privacy_requests WHERE ${stuckCondition('$1')}`,
      [seconds],
    );
    return rows[0]?.count ?? 0;
  },
};
