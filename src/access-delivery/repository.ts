// SQL of access-package download links: the SHA-256 of each token, its request and its expiry.
import type { Queryable } from '../db/database.ts';

/**
 * The INSERT of a link for the request row of `source` (a CTE with an `id` column; no row, no link), its
 * token's hash and its expiry the placeholders given: for a statement that makes the link beside the
 * change that hands it out.
 */
export function insertLinkFrom(source: string, tokenHash: string, expiresAt: string): string {
  return `INSERT INTO access_package_links (token_hash, privacy_request_id, expires_at)
          SELECT ${tokenHash}, id, ${expiresAt}::timestamptz FROM ${source}`;
}

export const accessLinkRepository = {
  async insert(
    tx: Queryable,
    tokenHash: Buffer,
    privacyRequestId: string,
    ttlSeconds: number,
  ): Promise<Date> {
    const { rows } = await tx.query<{ expires_at: Date }>(
      `INSERT INTO access_package_links (token_hash, privacy_request_id, expires_at)
       VALUES ($1, $2, now() + make_interval(secs => $3::int)) RETURNING expires_at`,
      [tokenHash, privacyRequestId, ttlSeconds],
    );
    return (rows[0] as { expires_at: Date }).expires_at;
  },

  /** The request of an unexpired link; undefined otherwise. */
  async liveRequest(db: Queryable, tokenHash: Buffer): Promise<string | undefined> {
    const { rows } = await db.query<{ privacy_request_id: string }>(
      'SELECT privacy_request_id FROM access_package_links WHERE token_hash = $1 AND expires_at > now()',
      [tokenHash],
    );
    return rows[0]?.privacy_request_id;
  },

  /** Links expired for a day are of no use to anyone. */
  async deleteExpired(db: Queryable): Promise<void> {
    await db.query(`DELETE FROM access_package_links WHERE expires_at < now() - interval '1 day'`);
  },
};
