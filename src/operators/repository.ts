// SQL of the operators table (operator accounts). Only the operator service uses it.
import type { Queryable } from '../db/database.ts';

export interface OperatorRow {
  username: string;
  password_hash: string;
  roles: string[];
  created_by: string;
  created_at: Date;
}

export const operatorRepository = {
  /** Inserts the operator; undefined when the username is taken. */
  async insert(
    db: Queryable,
    operator: { username: string; passwordHash: string; roles: readonly string[]; createdBy: string },
  ): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      `INSERT INTO operators (username, password_hash, roles, created_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (username) DO NOTHING RETURNING *`,
      [operator.username, operator.passwordHash, operator.roles, operator.createdBy],
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

  /** Deletes the operator (their tokens go with them: ON DELETE CASCADE). */
  async remove(db: Queryable, username: string): Promise<boolean> {
    return (await db.query('DELETE FROM operators WHERE username = $1', [username])).rowCount > 0;
  },
};
