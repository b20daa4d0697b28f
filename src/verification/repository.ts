// SQL of identity verification codes: one live code per request, as an HMAC, with the counts that live
// as long as the request (wrong codes over all its codes, codes sent again).
import type { Queryable } from '../db/database.ts';

export interface VerificationRow {
  privacy_request_id: string;
  code_hash: Uint8Array;
  failed_attempts: number;
  /** Wrong codes over the request's whole life (a new code does not reset it). */
  wrong_codes_total: number;
  /** Codes sent again after the first. */
  resends: number;
  expired: boolean;
  /** Seconds since the code was sent. */
  age_seconds: number;
}

/** The statement that deletes the codes of the requests in `requests` (a relation with their `id`). */
export function removeCodesOf(requests: string): string {
  return `DELETE FROM identity_verifications WHERE privacy_request_id IN (SELECT id FROM ${requests})`;
}

export const verificationRepository = {
  /**
   * Stores a new code for the request, replacing any earlier one: its tries start again, the request's
   * lifetime count of wrong codes does not, and a replacement counts as a resend.
   */
  async replace(tx: Queryable, id: string, codeHash: Buffer, ttlSeconds: number): Promise<void> {
    await tx.query(
      `INSERT INTO identity_verifications (privacy_request_id, code_hash, expires_at, failed_attempts, sent_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::int), 0, now())
       ON CONFLICT (privacy_request_id) DO UPDATE SET code_hash = EXCLUDED.code_hash,
         expires_at = EXCLUDED.expires_at, failed_attempts = 0, sent_at = EXCLUDED.sent_at,
         resends = identity_verifications.resends + 1`,
      [id, codeHash, ttlSeconds],
    );
  },

  async lock(tx: Queryable, id: string): Promise<VerificationRow | undefined> {
    const { rows } = await tx.query<VerificationRow>(
      `SELECT privacy_request_id, code_hash, failed_attempts, wrong_codes_total, resends,
              expires_at <= now() AS expired,
              extract(epoch FROM now() - sent_at)::float8 AS age_seconds
         FROM identity_verifications WHERE privacy_request_id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  },

  async countFailure(tx: Queryable, id: string): Promise<void> {
    await tx.query(
      `UPDATE identity_verifications SET failed_attempts = failed_attempts + 1,
              wrong_codes_total = wrong_codes_total + 1
        WHERE privacy_request_id = $1`,
      [id],
    );
  },

  async remove(tx: Queryable, id: string): Promise<void> {
    await tx.query('DELETE FROM identity_verifications WHERE privacy_request_id = $1', [id]);
  },
};
