// SQL for reply_tokens: one row per reply-to-token handed to a webhook, so a token is used at most once
// and a used or expired one is refused. The token itself (a signed JWT) never reaches the store.
import type { Queryable } from '../db/database.ts';

/** A reply token to record; `ttlSeconds` from now. */
export interface NewReplyToken {
  jti: string;
  step: number;
  kind: 'resume' | 'pre_approval';
  ttlSeconds: number;
}

/**
 * The INSERT of `insertToken` for the request row of `source` (a CTE with an `id` column; no row, no
 * token), for a statement that records the token beside other work; its four values are the parameters
 * numbered from `first`, in the order of `insertTokenValues`.
 */
export function insertTokenFrom(source: string, first: number): string {
  return `INSERT INTO reply_tokens (jti, privacy_request_id, step, kind, expires_at)
          SELECT $${first}, id, $${first + 1}, $${first + 2}, now() + make_interval(secs => $${first + 3}::int)
            FROM ${source}`;
}

/** The values of `insertTokenFrom`, in its order. */
export function insertTokenValues(token: NewReplyToken): unknown[] {
  return [token.jti, token.step, token.kind, token.ttlSeconds];
}

export const replyTokenRepository = {
  async insertToken(tx: Queryable, token: NewReplyToken & { id: string }): Promise<void> {
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
