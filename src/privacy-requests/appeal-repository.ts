// SQL for privacy_request_appeals (migration 018): one appeal per denied request whose jurisdiction gives
// one. The link's token is kept as its SHA-256 only and cleared by the appeal it opens (single use).
import type { Queryable } from '../db/database.ts';

export type AppealStatus = 'open' | 'pending' | 'upheld' | 'reversed';

export interface AppealRow {
  privacy_request_id: string;
  window_ends_at: Date;
  denied_by: string | null;
  status: AppealStatus;
  statement: string | null;
  submitted_at: Date | null;
  due_at: Date | null;
  decided_at: Date | null;
  decided_by: string | null;
  decision_reason: string | null;
}

const COLUMNS = `privacy_request_id, window_ends_at, denied_by, status, statement, submitted_at, due_at,
                 decided_at, decided_by, decision_reason`;

export const appealRepository = {
  /** The appeal a denial opens; a request is denied once, so a second insert changes nothing. */
  async open(
    tx: Queryable,
    appeal: { id: string; tokenHash: Buffer; windowEndsAt: Date; deniedBy: string },
  ): Promise<void> {
    await tx.query(
      `INSERT INTO privacy_request_appeals (privacy_request_id, token_hash, window_ends_at, denied_by)
       VALUES ($1, $2, $3, $4) ON CONFLICT (privacy_request_id) DO NOTHING`,
      [appeal.id, appeal.tokenHash, appeal.windowEndsAt, appeal.deniedBy],
    );
  },

  /** The open appeal a token (its hash) unlocks, locked for the caller's transaction. */
  async lockByToken(tx: Queryable, tokenHash: Buffer): Promise<AppealRow | undefined> {
    const { rows } = await tx.query<AppealRow>(
      `SELECT ${COLUMNS} FROM privacy_request_appeals WHERE token_hash = $1 AND status = 'open' FOR UPDATE`,
      [tokenHash],
    );
    return rows[0];
  },

  /** An open appeal whose window is still running, read by its token without spending it. */
  async findByToken(db: Queryable, tokenHash: Buffer): Promise<AppealRow | undefined> {
    const { rows } = await db.query<AppealRow>(
      `SELECT ${COLUMNS} FROM privacy_request_appeals WHERE token_hash = $1 AND status = 'open'`,
      [tokenHash],
    );
    return rows[0];
  },

  async lock(tx: Queryable, id: string): Promise<AppealRow | undefined> {
    const { rows } = await tx.query<AppealRow>(
      `SELECT ${COLUMNS} FROM privacy_request_appeals WHERE privacy_request_id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0];
  },

  async ofRequests(db: Queryable, ids: readonly string[]): Promise<Map<string, AppealRow>> {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<AppealRow>(
      `SELECT ${COLUMNS} FROM privacy_request_appeals WHERE privacy_request_id = ANY($1)`,
      [[...ids]],
    );
    return new Map(rows.map((row) => [row.privacy_request_id, row]));
  },

  /** open -> pending: the statement received, the token spent. */
  async submit(tx: Queryable, id: string, statement: string, at: Date, dueAt: Date): Promise<void> {
    await tx.query(
      `UPDATE privacy_request_appeals
          SET status = 'pending', statement = $2, submitted_at = $3, due_at = $4, token_hash = NULL
        WHERE privacy_request_id = $1 AND status = 'open'`,
      [id, statement, at, dueAt],
    );
  },

  /** pending -> upheld | reversed, with who decided and why. */
  async decide(
    tx: Queryable,
    id: string,
    decision: { outcome: 'upheld' | 'reversed'; reason: string; by: string; at: Date },
  ): Promise<void> {
    await tx.query(
      `UPDATE privacy_request_appeals
          SET status = $2, decision_reason = $3, decided_by = $4, decided_at = $5
        WHERE privacy_request_id = $1 AND status = 'pending'`,
      [id, decision.outcome, decision.reason, decision.by, decision.at],
    );
  },
};
