// SQL of task_respondent_links: the hashes of the links mailed to respondents. A link is spent in the
// transaction that completes its task.
import type { Queryable } from '../db/database.ts';

export interface RespondentLinkRow {
  token_hash: Uint8Array;
  task_id: string;
  expires_at: Date;
  used_at: Date | null;
}

export const respondentLinkRepository = {
  async insert(tx: Queryable, tokenHash: Buffer, taskId: string, expiresAt: Date): Promise<void> {
    await tx.query(
      'INSERT INTO task_respondent_links (token_hash, task_id, expires_at) VALUES ($1, $2, $3)',
      [tokenHash, taskId, expiresAt],
    );
  },

  /** Ends every link of the task still usable (a new invitation replaces them). */
  async revokeUnused(tx: Queryable, taskId: string): Promise<void> {
    await tx.query(
      `UPDATE task_respondent_links SET expires_at = now()
        WHERE task_id = $1 AND used_at IS NULL AND expires_at > now()`,
      [taskId],
    );
  },

  async find(db: Queryable, tokenHash: Buffer): Promise<RespondentLinkRow | undefined> {
    const { rows } = await db.query<RespondentLinkRow>(
      'SELECT * FROM task_respondent_links WHERE token_hash = $1',
      [tokenHash],
    );
    return rows[0];
  },

  /** Spends the link if it is unused and unexpired; answers its task id, or undefined. */
  async spend(tx: Queryable, tokenHash: Buffer): Promise<string | undefined> {
    const { rows } = await tx.query<{ task_id: string }>(
      `UPDATE task_respondent_links SET used_at = now()
        WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING task_id`,
      [tokenHash],
    );
    return rows[0]?.task_id;
  },
};
