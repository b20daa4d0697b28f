// The sweeps' reads and marks on privacy_requests: expired pauses, requests never verified, requests that
// stopped moving (a lost queue job), and identities past their time. Each locks and skips what a concurrent
// sweep holds, so several workers can sweep at once. The lock is FOR NO KEY UPDATE: a sweep changes a
// request's columns, never its key, so a row held only by a concurrent insert that references it (a log
// entry appended as its mail is delivered) is not skipped. Status changes go through repository.ts's
// transition.
import type { Queryable } from '../db/database.ts';
import type { RequestRow } from './repository.ts';

export const sweepRepository = {
  /** Paused requests whose pause began more than `seconds` ago, locked and skipped by concurrent sweeps. */
  async lockExpiredPauses(tx: Queryable, seconds: number, limit: number): Promise<RequestRow[]> {
    const { rows } = await tx.query<RequestRow>(
      `SELECT * FROM privacy_requests
        WHERE status = 'paused' AND paused_at <= now() - make_interval(secs => $1::int)
        ORDER BY paused_at LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [seconds, limit],
    );
    return rows;
  },

  /** Requests still awaiting identity verification `seconds` after receipt, locked and skipped by concurrent sweeps. */
  async lockUnverifiedOlderThan(tx: Queryable, seconds: number, limit: number): Promise<RequestRow[]> {
    const { rows } = await tx.query<RequestRow>(
      `SELECT * FROM privacy_requests
        WHERE status = 'identity_unverified' AND requested_at <= now() - make_interval(secs => $1::int)
        ORDER BY requested_at LIMIT $2 FOR NO KEY UPDATE SKIP LOCKED`,
      [seconds, limit],
    );
    return rows;
  },

  /** The request, locked, when it is paused and has been for at least `seconds`; undefined otherwise. */
  async lockExpiredPause(tx: Queryable, id: string, seconds: number): Promise<RequestRow | undefined> {
    const { rows } = await tx.query<RequestRow>(
      `SELECT * FROM privacy_requests
        WHERE id = $1 AND status = 'paused' AND paused_at <= now() - make_interval(secs => $2::int)
        FOR NO KEY UPDATE SKIP LOCKED`,
      [id, seconds],
    );
    return rows[0];
  },

  /** Requests that should be moving but have not for `seconds`: candidates for a lost queue job. */
  async stalled(db: Queryable, seconds: number, limit: number): Promise<string[]> {
    const { rows } = await db.query<{ id: string }>(
      `SELECT r.id FROM privacy_requests r
        WHERE r.updated_at <= now() - make_interval(secs => $1::int)
          AND (r.status IN ('approved', 'in_processing')
               OR (r.status = 'pending' AND EXISTS (
                     SELECT 1 FROM privacy_request_steps s
                      WHERE s.privacy_request_id = r.id AND s.position = r.next_step AND s.kind = 'pre_approval')))
        ORDER BY r.updated_at LIMIT $2`,
      [seconds, limit],
    );
    return rows.map((row) => row.id);
  },

  async touch(tx: Queryable, id: string): Promise<void> {
    await tx.query('UPDATE privacy_requests SET updated_at = now() WHERE id = $1', [id]);
  },

  /**
   * Purges the identities of requests past their TTL once they are closed (or in error): an open request
   * keeps them as long as it is open, since a task or an appeal can outlast the TTL (docs/deadlines.md).
   */
  async purgeExpiredIdentities(db: Queryable): Promise<number> {
    const { rowCount } = await db.query(
      `UPDATE privacy_requests SET identity_sealed = NULL, unverified_identity_sealed = NULL, recipient_index = NULL,
              identity_purged_at = now(), updated_at = now()
        WHERE identity_sealed IS NOT NULL AND identity_expires_at <= now()
          AND status IN ('complete', 'denied', 'canceled', 'error')`,
    );
    return rowCount;
  },
};
