// SQL of the SCIM groups (scim_groups) and their members (scim_group_members). The SCIM service is its
// only writer; the operators' repository reads the members' group names for their roles.
import type { Queryable } from '../db/database.ts';

export interface GroupRow {
  id: string;
  display_name: string;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
  /** Members as [scim id, username], in username order. */
  members: { value: string; username: string }[];
}

const MEMBERS = `COALESCE((SELECT json_agg(json_build_object('value', o.scim_id, 'username', o.username) ORDER BY o.username)
  FROM scim_group_members m JOIN operators o ON o.username = m.username WHERE m.group_id = g.id), '[]'::json) AS members`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const groupRepository = {
  async insert(db: Queryable, group: { displayName: string; externalId: string | null }) {
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO scim_groups (display_name, external_id) VALUES ($1, $2)
       ON CONFLICT (display_name) DO NOTHING RETURNING id`,
      [group.displayName, group.externalId],
    );
    return rows[0]?.id;
  },

  async find(db: Queryable, id: string, lock = false): Promise<GroupRow | undefined> {
    if (!UUID.test(id)) return undefined;
    const { rows } = await db.query<GroupRow>(
      `SELECT g.*, ${MEMBERS} FROM scim_groups g WHERE g.id = $1${lock ? ' FOR UPDATE OF g' : ''}`,
      [id],
    );
    return rows[0];
  },

  async page(
    db: Queryable,
    query: { displayName?: string; offset: number; limit: number },
  ): Promise<{ rows: GroupRow[]; total: number }> {
    const params: unknown[] = [query.offset, query.limit];
    if (query.displayName !== undefined) params.push(query.displayName);
    const where = query.displayName === undefined ? '' : 'WHERE g.display_name = $3';
    const { rows } = await db.query<GroupRow>(
      `SELECT g.*, ${MEMBERS} FROM scim_groups g ${where} ORDER BY g.created_at, g.id OFFSET $1 LIMIT $2`,
      params,
    );
    const count = await db.query<{ total: string }>(
      `SELECT count(*) AS total FROM scim_groups g ${where.replace('$3', '$1')}`,
      query.displayName === undefined ? [] : [query.displayName],
    );
    return { rows, total: Number(count.rows[0]?.total ?? 0) };
  },

  /** Changes name and external id; false when the name belongs to another group. */
  async rename(db: Queryable, id: string, group: { displayName: string; externalId: string | null }) {
    const { rowCount } = await db.query(
      `UPDATE scim_groups SET display_name = $2, external_id = $3, updated_at = now()
        WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM scim_groups other WHERE other.display_name = $2 AND other.id <> $1)`,
      [id, group.displayName, group.externalId],
    );
    return rowCount > 0;
  },

  async addMembers(db: Queryable, id: string, usernames: readonly string[]) {
    if (usernames.length === 0) return;
    await db.query(
      `INSERT INTO scim_group_members (group_id, username) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`,
      [id, usernames],
    );
    await db.query('UPDATE scim_groups SET updated_at = now() WHERE id = $1', [id]);
  },

  async removeMembers(db: Queryable, id: string, usernames: readonly string[]) {
    if (usernames.length === 0) return;
    await db.query('DELETE FROM scim_group_members WHERE group_id = $1 AND username = ANY($2::text[])', [
      id,
      usernames,
    ]);
    await db.query('UPDATE scim_groups SET updated_at = now() WHERE id = $1', [id]);
  },

  async remove(db: Queryable, id: string): Promise<boolean> {
    return (await db.query('DELETE FROM scim_groups WHERE id = $1', [id])).rowCount > 0;
  },
};
