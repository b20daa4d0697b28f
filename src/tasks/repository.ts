// SQL of the tasks table: one task per request and manual system and action, created with the move to
// `requires_input` (creation.ts) and changed by the task service. Task data arrives sealed (task-data.ts)
// and leaves sealed: this module never sees a personal value.
import type { Queryable } from '../db/database.ts';
import type { Translations } from '../i18n/operator-texts.ts';
import type { ManualAction, ManualField } from '../manual-systems/schemas.ts';

export type TaskStatus = 'open' | 'done' | 'skipped' | 'canceled';

export interface TaskRow {
  id: string;
  privacy_request_id: string;
  system_key: string;
  system_name: string;
  action: ManualAction;
  fields: ManualField[];
  instructions: string;
  /** The instructions in other languages, copied from the system with them. */
  translations: Translations;
  respondent_email: string | null;
  status: TaskStatus;
  assignee: string | null;
  due_at: Date;
  created_at: Date;
  done_at: Date | null;
  done_by: string | null;
  skip_reason: string | null;
  data_sealed: Uint8Array | null;
}

export interface NewTask {
  id: string;
  systemKey: string;
  systemName: string;
  action: ManualAction;
  fields: ManualField[];
  instructions: string;
  translations: Translations;
  respondentEmail: string | null;
  assignee: string | null;
  dueAt: Date;
}

export interface TaskFilter {
  status?: TaskStatus;
  assignee?: string;
  overdue?: boolean;
  privacyRequestId?: string;
}

function filterClause(filter: TaskFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (at: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.status !== undefined) add((at) => `status = ${at}`, filter.status);
  if (filter.assignee !== undefined) add((at) => `assignee = ${at}`, filter.assignee);
  if (filter.privacyRequestId !== undefined)
    add((at) => `privacy_request_id = ${at}`, filter.privacyRequestId);
  if (filter.overdue) conditions.push(`status = 'open' AND due_at < now()`);
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

/**
 * SQL that holds when the request whose id is `requestId` (an SQL expression) has an open task past its
 * due time: for the owner of requests' "stuck" flag, which reads no column of this table itself.
 */
export function overdueTaskOf(requestId: string): string {
  return `EXISTS (SELECT FROM tasks t WHERE t.privacy_request_id = ${requestId} AND t.status = 'open'
                    AND t.due_at < now())`;
}

export const taskRepository = {
  /** Inserts the tasks of one request; a task the request already has (same system and action) is kept. */
  async insertTasks(tx: Queryable, privacyRequestId: string, tasks: readonly NewTask[]): Promise<TaskRow[]> {
    if (tasks.length === 0) return [];
    const { rows } = await tx.query<TaskRow>(
      `INSERT INTO tasks (id, privacy_request_id, system_key, system_name, action, fields, instructions,
                          translations, respondent_email, assignee, due_at)
       SELECT t->>'id', $1, t->>'systemKey', t->>'systemName', t->>'action', t->'fields', t->>'instructions',
              COALESCE(t->'translations', '{}'), t->>'respondentEmail', t->>'assignee', (t->>'dueAt')::timestamptz
         FROM jsonb_array_elements($2::jsonb) AS item(t)
       ON CONFLICT (privacy_request_id, system_key, action) DO NOTHING
       RETURNING *`,
      [privacyRequestId, JSON.stringify(tasks)],
    );
    return rows;
  },

  async find(db: Queryable, id: string): Promise<TaskRow | undefined> {
    const { rows } = await db.query<TaskRow>('SELECT * FROM tasks WHERE id = $1', [id]);
    return rows[0];
  },

  async lock(tx: Queryable, id: string): Promise<TaskRow | undefined> {
    const { rows } = await tx.query<TaskRow>('SELECT * FROM tasks WHERE id = $1 FOR UPDATE', [id]);
    return rows[0];
  },

  async page(db: Queryable, filter: TaskFilter, limit: number, offset: number): Promise<TaskRow[]> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<TaskRow>(
      `SELECT * FROM tasks ${where} ORDER BY due_at, created_at, id
        LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, limit, offset],
    );
    return rows;
  },

  async count(db: Queryable, filter: TaskFilter): Promise<number> {
    const { where, params } = filterClause(filter);
    const { rows } = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM tasks ${where}`,
      params,
    );
    return rows[0]?.total ?? 0;
  },

  /** Closes an open task; undefined when it was not open any more. */
  async close(
    tx: Queryable,
    id: string,
    close: { status: 'done' | 'skipped'; doneBy: string; skipReason?: string; dataSealed?: Buffer },
  ): Promise<TaskRow | undefined> {
    const { rows } = await tx.query<TaskRow>(
      `UPDATE tasks SET status = $2, done_at = now(), done_by = $3, skip_reason = $4, data_sealed = $5
        WHERE id = $1 AND status = 'open' RETURNING *`,
      [id, close.status, close.doneBy, close.skipReason ?? null, close.dataSealed ?? null],
    );
    return rows[0];
  },

  /** Closes every open task of the request as `canceled` (its request ended unanswered); answers them. */
  async cancelOpen(tx: Queryable, privacyRequestId: string, by: string): Promise<TaskRow[]> {
    const { rows } = await tx.query<TaskRow>(
      `UPDATE tasks SET status = 'canceled', done_at = now(), done_by = $2
        WHERE privacy_request_id = $1 AND status = 'open' RETURNING *`,
      [privacyRequestId, by],
    );
    return rows;
  },

  async assign(tx: Queryable, id: string, assignee: string | null): Promise<TaskRow | undefined> {
    const { rows } = await tx.query<TaskRow>('UPDATE tasks SET assignee = $2 WHERE id = $1 RETURNING *', [
      id,
      assignee,
    ]);
    return rows[0];
  },

  async openCount(tx: Queryable, privacyRequestId: string): Promise<number> {
    const { rows } = await tx.query<{ open: number }>(
      `SELECT count(*)::int AS open FROM tasks WHERE privacy_request_id = $1 AND status = 'open'`,
      [privacyRequestId],
    );
    return rows[0]?.open ?? 0;
  },

  /** Open tasks past due not yet reminded of today, locked for the reminder (others skip them). */
  async lockOverdueToRemind(tx: Queryable, limit: number): Promise<TaskRow[]> {
    const { rows } = await tx.query<TaskRow>(
      `SELECT * FROM tasks
        WHERE status = 'open' AND due_at < now() AND (reminded_on IS NULL OR reminded_on < current_date)
        ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    return rows;
  },

  async markReminded(tx: Queryable, ids: readonly string[]): Promise<void> {
    await tx.query('UPDATE tasks SET reminded_on = current_date WHERE id = ANY($1)', [ids]);
  },

  /** Whether an access task of the request was completed with data: the request has access results. */
  async hasAccessData(db: Queryable, privacyRequestId: string): Promise<boolean> {
    const { rows } = await db.query<{ given: boolean }>(
      `SELECT EXISTS (SELECT FROM tasks WHERE privacy_request_id = $1 AND action = 'access' AND status = 'done'
                         AND data_sealed IS NOT NULL) AS given`,
      [privacyRequestId],
    );
    return rows[0]?.given ?? false;
  },

  /** The access tasks of a request completed with data, in system order. */
  async accessData(db: Queryable, privacyRequestId: string): Promise<TaskRow[]> {
    const { rows } = await db.query<TaskRow>(
      `SELECT * FROM tasks WHERE privacy_request_id = $1 AND action = 'access' AND status = 'done'
          AND data_sealed IS NOT NULL
        ORDER BY system_key`,
      [privacyRequestId],
    );
    return rows;
  },
};
