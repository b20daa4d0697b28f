// SQL for reply_tokens: one row per reply-to-token handed to a webhook, so a token is used at most once
// and a used or expired one is refused. The token itself (a signed JWT) never reaches the store.
import type { Queryable } from '../db/database.ts';

export const replyTokenRepository = {
  async insertToken(
    tx: Queryable,
    token: { jti: string; id: string; step: number; kind: 'resume' | 'pre_approval'; ttlSeconds: number },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO reply_tokens (jti, privacy_request_id, step, kind, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5::int))`,
      [token.jti, token.id, token.step, token.kind, token.ttlSeconds],
    );
  },

  async lockToken(
    tx: Queryable,
    jti: string,
  ): Promise<
    | { privacy_request_id: string; step: number; kind: string; used_at: Date | null; expired: boolean }
    | undefined
  > {
    const { rows } = await tx.query<{
      privacy_request_id: string;
      step: number;
      kind: string;
      used_at: Date | null;
      expired: boolean;
    }>(
      `SELECT privacy_request_id, step, kind, used_at, expires_at <= now() AS expired
         FROM reply_tokens WHERE jti = $1 FOR UPDATE`,
      [jti],
    );
    return rows[0];
  },

  /** Ends every unused reply-to-token of the request (it was canceled). */
  async expireTokens(tx: Queryable, id: string): Promise<void> {
    await tx.query(
      'UPDATE reply_tokens SET expires_at = now() WHERE privacy_request_id = $1 AND used_at IS NULL AND expires_at > now()',
      [id],
    );
  },

  async useToken(tx: Queryable, jti: string): Promise<void> {
    await tx.query('UPDATE reply_tokens SET used_at = now() WHERE jti = $1', [jti]);
  },

  async deleteOldTokens(db: Queryable): Promise<void> {
    await db.query(`DELETE FROM reply_tokens WHERE expires_at < now() - interval '1 day'`);
  },
};
