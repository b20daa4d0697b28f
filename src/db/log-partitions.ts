// Upkeep of the two time-partitioned logs (the audit log and the privacy-request log; migration 012):
// month partitions are created a few months ahead, and with LETHE_AUDIT_RETENTION_DAYS above 0 the months
// wholly older than that are dropped, whole partitions at once (the audit log itself refuses any UPDATE,
// DELETE or TRUNCATE). Every Lethe process runs it at start and then daily, so partitions exist ahead
// even when one process runs for months.
import type { Queryable } from './database.ts';

export const PARTITIONED_LOGS = ['audit_log', 'privacy_request_log'] as const;

/** Months of partitions kept ready beyond the current one. */
const MONTHS_AHEAD = 3;

export const LOG_UPKEEP_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * Creates the partitions ahead of `now` and drops those past retention (0: keep forever); answers the dropped
 * ones. `now` is passed in so that tests can fix the calendar instead of depending on the day they run.
 */
export async function maintainLogPartitions(
  db: Queryable,
  retentionDays: number,
  now: Date = new Date(),
): Promise<string[]> {
  const dropped: string[] = [];
  for (const table of PARTITIONED_LOGS) {
    await db.query('SELECT lethe_ensure_month_partitions($1, $2::timestamptz, $3)', [
      table,
      now.toISOString(),
      MONTHS_AHEAD,
    ]);
    if (retentionDays > 0) {
      const { rows } = await db.query<{ dropped: string }>(
        `SELECT lethe_drop_month_partitions($1, $2::timestamptz - make_interval(days => $3)) AS dropped`,
        [table, now.toISOString(), retentionDays],
      );
      dropped.push(...rows.map((row) => row.dropped));
    }
  }
  return dropped;
}
