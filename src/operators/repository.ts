// SQL of the operators table (operator accounts, made in Lethe, at a provider sign-in or by SCIM) and of the
// SCIM groups they are in. The operator service uses it, and the overdue-task reminder reads an assignee's
// email (src/tasks/reminders.ts).
import type { Queryable } from '../db/database.ts';

export interface OperatorRow {
  username: string;
  /** Null for an account from the identity provider: it signs in there, never with a password. */
  password_hash: string | null;
  roles: string[];
  email: string | null;
  created_by: string;
  created_at: Date;
  active: boolean;
  provider: 'oidc' | 'scim' | null;
  provider_subject: string | null;
  groups: string[];
  scim_id: string;
  external_id: string | null;
  display_name: string | null;
  updated_at: Date;
}

export interface NewOperator {
  username: string;
  passwordHash: string | null;
  roles: readonly string[];
  email: string | null;
  createdBy: string;
  provider?: 'oidc' | 'scim';
  providerSubject?: string | null;
  groups?: readonly string[];
  externalId?: string | null;
  displayName?: string | null;
  active?: boolean;
}

/** The columns an update may set; each left undefined stays as it is. */
export interface OperatorChanges {
  roles?: readonly string[];
  email?: string | null;
  groups?: readonly string[];
  active?: boolean;
  providerSubject?: string | null;
  externalId?: string | null;
  displayName?: string | null;
}

const CHANGE_COLUMNS: Record<keyof OperatorChanges, string> = {
  roles: 'roles',
  email: 'email',
  groups: 'groups',
  active: 'active',
  providerSubject: 'provider_subject',
  externalId: 'external_id',
  displayName: 'display_name',
};

export const operatorRepository = {
  /** Inserts the operator; undefined when the username is taken. */
  async insert(db: Queryable, operator: NewOperator): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      `INSERT INTO operators (username, password_hash, roles, email, created_by, provider, provider_subject,
                              groups, external_id, display_name, active)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (username) DO NOTHING RETURNING *`,
      [
        operator.username,
        operator.passwordHash,
        operator.roles,
        operator.email,
        operator.createdBy,
        operator.provider ?? null,
        operator.providerSubject ?? null,
        operator.groups ?? [],
        operator.externalId ?? null,
        operator.displayName ?? null,
        operator.active ?? true,
      ],
    );
    return rows[0];
  },

  async find(db: Queryable, username: string): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>('SELECT * FROM operators WHERE username = $1', [username]);
    return rows[0];
  },

  /** The operator, locked for the rest of the transaction. */
  async lock(db: Queryable, username: string): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>('SELECT * FROM operators WHERE username = $1 FOR UPDATE', [
      username,
    ]);
    return rows[0];
  },

  async findByScimId(db: Queryable, id: string, lock = false): Promise<OperatorRow | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const { rows } = await db.query<OperatorRow>(
      `SELECT * FROM operators WHERE scim_id = $1${lock ? ' FOR UPDATE' : ''}`,
      [id],
    );
    return rows[0];
  },

  async findBySubject(db: Queryable, subject: string): Promise<OperatorRow | undefined> {
    const { rows } = await db.query<OperatorRow>(
      'SELECT * FROM operators WHERE provider_subject = $1 FOR UPDATE',
      [subject],
    );
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

  /** A page of operators (SCIM lists), optionally only the one of a username; and how many match. */
  async page(
    db: Queryable,
    query: { username?: string; offset: number; limit: number },
  ): Promise<{ rows: OperatorRow[]; total: number }> {
    const where = query.username === undefined ? '' : 'WHERE username = $3';
    const params: unknown[] = [query.offset, query.limit];
    if (query.username !== undefined) params.push(query.username);
    const { rows } = await db.query<OperatorRow & { total: string }>(
      `SELECT *, count(*) OVER () AS total FROM operators ${where} ORDER BY created_at, username OFFSET $1 LIMIT $2`,
      params,
    );
    const total =
      rows.length > 0
        ? Number(rows[0]?.total)
        : Number(
            (
              await db.query<{ total: string }>(
                `SELECT count(*) AS total FROM operators ${where.replace('$3', '$1')}`,
                query.username === undefined ? [] : [query.username],
              )
            ).rows[0]?.total ?? 0,
          );
    return { rows: rows.map(({ total: _total, ...row }) => row), total };
  },

  async withRole(db: Queryable, role: string): Promise<OperatorRow[]> {
    return (
      await db.query<OperatorRow>('SELECT * FROM operators WHERE $1 = ANY(roles) ORDER BY username', [role])
    ).rows;
  },

  /** Sets the given columns; undefined when there is no such operator. */
  async update(db: Queryable, username: string, changes: OperatorChanges): Promise<OperatorRow | undefined> {
    const entries = Object.entries(changes).filter(([, value]) => value !== undefined) as [
      keyof OperatorChanges,
      unknown,
    ][];
    const sets = entries.map(([key], index) => `${CHANGE_COLUMNS[key]} = $${index + 2}`);
    const { rows } = await db.query<OperatorRow>(
      `UPDATE operators SET ${[...sets, 'updated_at = now()'].join(', ')} WHERE username = $1 RETURNING *`,
      [username, ...entries.map(([, value]) => value)],
    );
    return rows[0];
  },

  /** The email of the operator, if they have one set (the overdue-task reminder's address). */
  async emailOf(db: Queryable, username: string): Promise<string | null> {
    const { rows } = await db.query<{ email: string | null }>(
      'SELECT email FROM operators WHERE username = $1',
      [username],
    );
    return rows[0]?.email ?? null;
  },

  /** The display names of the SCIM groups the operator is a member of. */
  async scimGroupsOf(db: Queryable, username: string): Promise<string[]> {
    const { rows } = await db.query<{ display_name: string }>(
      `SELECT g.display_name FROM scim_groups g JOIN scim_group_members m ON m.group_id = g.id
        WHERE m.username = $1 ORDER BY g.display_name`,
      [username],
    );
    return rows.map((row) => row.display_name);
  },

  /** Deletes the operator (their tokens go with them: ON DELETE CASCADE). */
  async remove(db: Queryable, username: string): Promise<boolean> {
    return (await db.query('DELETE FROM operators WHERE username = $1', [username])).rowCount > 0;
  },
};
