// SQL of access-package download links: the SHA-256 of each token, its request and its expiry.
import type { Queryable } from '../db/database.ts';

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

  /** The request of an unexpired link whose request is still complete; undefined otherwise. */
  async liveRequest(db: Queryable, tokenHash: Buffer): Promise<string | undefined> {
    const { rows } = await db.query<{ privacy_request_id: string }>(
      `SELECT l.privacy_request_id FROM access_package_links l
         JOIN privacy_requests r ON r.id = l.privacy_request_id AND r.status = 'complete'
        WHERE l.token_hash = $1 AND l.expires_at > now()`,
      [tokenHash],
    );
    return rows[0]?.privacy_request_id;
  },

  /** The latest "policy rules ran" summary of a request, as the executor logged it. */
  async rulesSummary(db: Queryable, privacyRequestId: string): Promise<unknown> {
    const { rows } = await db.query<{ details: unknown }>(
      `SELECT details FROM privacy_request_log
        WHERE privacy_request_id = $1 AND kind = 'rules' AND details IS NOT NULL
        ORDER BY seq DESC LIMIT 1`,
      [privacyRequestId],
    );
    return rows[0]?.details;
  },
};
