// SQL of the manual_systems table. Only the manual-system service writes it; the task domain reads the
// systems a request's actions call for through `systemsFor`.
import type { Queryable } from '../db/database.ts';
import type { Translations } from '../i18n/operator-texts.ts';
import type { ManualAction, ManualField, ManualSystemInput } from './schemas.ts';

export interface ManualSystemRow {
  key: string;
  name: string;
  actions: ManualAction[];
  fields: ManualField[];
  instructions: string;
  assignee: string | null;
  respondent_email: string | null;
  identities: string[];
  /** The instructions in other languages ({language: {instructions: text}}). */
  translations: Translations;
  created_at: Date;
  updated_at: Date;
}

export const manualSystemRepository = {
  /** Creates or replaces the system; answers it and whether it was new. */
  async upsert(
    db: Queryable,
    key: string,
    input: ManualSystemInput,
  ): Promise<{ row: ManualSystemRow; created: boolean }> {
    const { rows } = await db.query<ManualSystemRow & { created: boolean }>(
      `INSERT INTO manual_systems (key, name, actions, fields, instructions, assignee, respondent_email, identities,
                                   translations)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9::jsonb)
       ON CONFLICT (key) DO UPDATE SET name = EXCLUDED.name, actions = EXCLUDED.actions,
         fields = EXCLUDED.fields, instructions = EXCLUDED.instructions, assignee = EXCLUDED.assignee,
         respondent_email = EXCLUDED.respondent_email, identities = EXCLUDED.identities,
         translations = EXCLUDED.translations, updated_at = now()
       RETURNING *, (xmax = 0) AS created`,
      [
        key,
        input.name,
        input.actions,
        JSON.stringify(input.fields),
        input.instructions,
        input.assignee ?? null,
        input.respondent_email ?? null,
        input.identities ?? [],
        JSON.stringify(input.translations ?? {}),
      ],
    );
    const { created, ...row } = rows[0] as ManualSystemRow & { created: boolean };
    return { row, created };
  },

  async find(db: Queryable, key: string): Promise<ManualSystemRow | undefined> {
    const { rows } = await db.query<ManualSystemRow>('SELECT * FROM manual_systems WHERE key = $1', [key]);
    return rows[0];
  },

  async list(db: Queryable): Promise<ManualSystemRow[]> {
    return (await db.query<ManualSystemRow>('SELECT * FROM manual_systems ORDER BY key')).rows;
  },

  /** The systems that list any of `actions`, in key order. */
  async systemsFor(db: Queryable, actions: readonly string[]): Promise<ManualSystemRow[]> {
    const { rows } = await db.query<ManualSystemRow>(
      'SELECT * FROM manual_systems WHERE actions && $1::text[] ORDER BY key',
      [actions],
    );
    return rows;
  },

  async remove(db: Queryable, key: string): Promise<boolean> {
    return (await db.query('DELETE FROM manual_systems WHERE key = $1', [key])).rowCount > 0;
  },
};
