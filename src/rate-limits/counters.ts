// The SQL of the shared fixed-window counters (table rate_limit_counters), written once for every caller:
// the per-key limiter, the batched per-process flush and the API gate's one-statement admission.
// Counting commits without waiting for the WAL flush (synchronous_commit off for that transaction only):
// every request of a key updates the same row, so waiting for the flush queued each key's requests behind
// one fsync each (about 460 req/s for one key); a crash may forget a fraction of a second of counts, never
// anything else.
import type { Queryable } from '../db/database.ts';

/** The milliseconds left in a counter row's window, as `ttl_ms`. */
const TTL_MS = 'greatest(0, ceil(extract(epoch FROM window_ends_at - now()) * 1000))::int AS ttl_ms';

/** A window that starts now and lasts `windowMsParameter` milliseconds (a SQL parameter such as `$2`). */
export function windowEndingAfter(windowMsParameter: string): string {
  return `now() + make_interval(secs => ${windowMsParameter}::double precision / 1000)`;
}

/** A FROM item that turns off the WAL-flush wait for the counting transaction (see the head of this file). */
export const WITHOUT_FLUSH_WAIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit";

/**
 * Adds hits to counters: `rows` is a SELECT of (key, hits to add, end of a new window), which should list
 * WITHOUT_FLUSH_WAIT among its FROM items. A window that has ended starts again with the new hits. Answers
 * each counted key with its hits in the window and `ttl_ms`.
 */
export function countHitsStatement(rows: string): string {
  return `INSERT INTO rate_limit_counters AS c (key, hits, window_ends_at)
  ${rows}
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.hits ELSE c.hits + EXCLUDED.hits END,
    window_ends_at = CASE WHEN c.window_ends_at <= now() THEN EXCLUDED.window_ends_at ELSE c.window_ends_at END
  RETURNING key, hits, ${TTL_MS}`;
}

/** The open window of the counter keyed by `keyParameter`: its hits and `ttl_ms`; no row when none is open. */
export function readWindowStatement(keyParameter: string): string {
  return `SELECT hits, ${TTL_MS} FROM rate_limit_counters WHERE key = ${keyParameter} AND window_ends_at > now()`;
}

/** Deletes the counter of `key` (a deleted API key's, so a new key never inherits its window). */
export async function forgetCounter(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM rate_limit_counters WHERE key = $1', [key]);
}
