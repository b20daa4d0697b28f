// SQL of the roles table (custom roles: named sets of scopes). The role service is its only writer.
import type { Queryable } from '../db/database.ts';

export interface RoleRow {
  name: string;
  scopes: string[];
  description: string;
  updated_by: string;
  updated_at: Date;
}

export const roleRepository = {
  async list(db: Queryable): Promise<RoleRow[]> {
    return (await db.query<RoleRow>('SELECT * FROM roles ORDER BY name')).rows;
  },

  async findMany(db: Queryable, names: readonly string[]): Promise<RoleRow[]> {
    if (names.length === 0) return [];
    // FOR SHARE: a role being given or read now cannot be deleted under it (RoleService.remove locks it).
    return (await db.query<RoleRow>('SELECT * FROM roles WHERE name = ANY($1::text[]) FOR SHARE', [names]))
      .rows;
  },

  async upsert(
    db: Queryable,
    role: { name: string; scopes: readonly string[]; description: string; updatedBy: string },
  ): Promise<{ row: RoleRow; created: boolean }> {
    const { rows } = await db.query<RoleRow & { created: boolean }>(
      `INSERT INTO roles (name, scopes, description, updated_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET scopes = EXCLUDED.scopes, description = EXCLUDED.description,
         updated_by = EXCLUDED.updated_by, updated_at = now()
       RETURNING *, (xmax = 0) AS created`,
      [role.name, role.scopes, role.description, role.updatedBy],
    );
    const { created, ...row } = rows[0] as RoleRow & { created: boolean };
    return { row, created };
  },

  async remove(db: Queryable, name: string): Promise<boolean> {
    return (await db.query('DELETE FROM roles WHERE name = $1', [name])).rowCount > 0;
  },

  /** Takes the table's lock so that no operator is given a role while it is being deleted. */
  async lock(db: Queryable, name: string): Promise<RoleRow | undefined> {
    const { rows } = await db.query<RoleRow>('SELECT * FROM roles WHERE name = $1 FOR UPDATE', [name]);
    return rows[0];
  },
};
