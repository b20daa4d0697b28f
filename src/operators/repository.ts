// SQL of the operators table (operator accounts). The operator service uses it, and the overdue-task reminder
// reads an assignee's email (src/tasks/reminders.ts).
import type { Queryable } from '../db/database.ts';

export interface OperatorRow {
  username: string;
  password_hash: string;
  roles: string[];
  email: string | null;
  /** Whether the operator gets the daily digest (src/events/digest.ts). */
  digest: boolean;
  created_by: string;
  created_at: Date;
}

export const operatorRepository = {
  /** Inserts the operator; undefined when the username is taken. */
  async insert(
    db: Queryable,
    operator: {
      username: string;
      passwordHash: string;
      roles: readonly string[];
      email: string | null;
      createdBy: string;
    },
  ): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      `INSERT INTO operators (username, password_hash, roles, email, created_by) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (username) DO NOTHING RETURNING *`,
      [operator.username, operator.passwordHash, operator.roles, operator.email, operator.createdBy],
    );
    return rows[0];
  },

  async find(db: Queryable, username: string): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>('SELECT * FROM operators WHERE username = $1', [username]);
    return rows[0];
  },

  /** Whether any operator account exists (the console's sign-in asks, before anyone signs in). */
  async any(db: Queryable): Promise<boolean> {
    const { rows } = await db.query<{ any: boolean }>('SELECT EXISTS (SELECT 1 FROM operators) AS any');
    return rows[0]?.any === true;
  },

  async list(db: Queryable): Promise<OperatorRow[]> {
    return (await db.query<OperatorRow>('SELECT * FROM operators ORDER BY username')).rows;
  },

  /** Sets (or, with null, clears) the operator's email; undefined when there is no such operator. */
  async setEmail(db: Queryable, username: string, email: string | null): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      'UPDATE operators SET email = $2 WHERE username = $1 RETURNING *',
      [username, email],
    );
    return rows[0];
  },

  /** Turns the operator's daily digest on or off; undefined when there is no such operator. */
  async setDigest(db: Queryable, username: string, digest: boolean): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      'UPDATE operators SET digest = $2 WHERE username = $1 RETURNING *',
      [username, digest],
    );
    return rows[0];
  },

  /** The operators holding the owner role, with their email (src/events/ tells them of a disabled subscription). */
  async owners(db: Queryable): Promise<{ username: string; email: string | null }[]> {
    const { rows } = await db.query<{ username: string; email: string | null }>(
      `SELECT username, email FROM operators WHERE 'owner' = ANY (roles) ORDER BY username`,
    );
    return rows;
  },

  /**
   * The operators who asked for the daily digest (only `username`, when given) and have not had it on the
   * local `day`, unless `again`: `lethe digest send` sends it whatever was sent.
   */
  async digestReaders(
    db: Queryable,
    filter: { username: string | undefined; day: string; again: boolean },
  ): Promise<{ username: string; email: string | null }[]> {
    const { rows } = await db.query<{ username: string; email: string | null }>(
      `SELECT username, email FROM operators
        WHERE digest AND ($1::text IS NULL OR username = $1) AND ($3 OR digest_sent_on IS DISTINCT FROM $2::date)
        ORDER BY username`,
      [filter.username ?? null, filter.day, filter.again],
    );
    return rows;
  },

  /** Marks the digest of the local `day` as the operator's; false when it already was (and not `again`). */
  async claimDigestDay(tx: Queryable, username: string, day: string, again: boolean): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE operators SET digest_sent_on = $2::date
        WHERE username = $1 AND digest AND ($3 OR digest_sent_on IS DISTINCT FROM $2::date)`,
      [username, day, again],
    );
    return (rowCount ?? 0) > 0;
  },

  /** The email of the operator, if they have one set (the overdue-task reminder's address). */
  async emailOf(db: Queryable, username: string): Promise<string | null> {
    const { rows } = await db.query<{ email: string | null }>(
      'SELECT email FROM operators WHERE username = $1',
      [username],
    );
    return rows[0]?.email ?? null;
  },

  /** Deletes the operator (their tokens go with them: ON DELETE CASCADE). */
  async remove(db: Queryable, username: string): Promise<boolean> {
    return (await db.query('DELETE FROM operators WHERE username = $1', [username])).rowCount > 0;
  },
};
