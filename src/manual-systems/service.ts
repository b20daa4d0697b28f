// Manual systems: what each is, which actions call for it, the fields a person fills in and who owns its
// tasks. Every change is in the configuration audit. Deleting a system leaves the tasks already given out
// as they are (each holds its own copy of the system), and creates none from then on.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import type { Database, Queryable } from '../db/database.ts';
import { invalid, notFound } from '../errors.ts';
import { translationsProblem } from '../i18n/operator-texts.ts';
import { operatorRepository } from '../operators/repository.ts';
import { type ManualSystemRow, manualSystemRepository as repo } from './repository.ts';
import type { ManualSystemInput, ManualSystemView } from './schemas.ts';

export function toManualSystemView(row: ManualSystemRow): ManualSystemView {
  return {
    key: row.key,
    name: row.name,
    actions: row.actions,
    fields: row.fields,
    instructions: row.instructions,
    assignee: row.assignee,
    respondent_email: row.respondent_email,
    identities: row.identities,
    translations: row.translations,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An assignee must be an operator who exists now (a later deletion leaves the name, shown as it is). */
export async function assertOperator(db: Queryable, username: string | null | undefined): Promise<void> {
  if (username === null || username === undefined) return;
  if (!(await operatorRepository.find(db, username))) {
    throw invalid(`assignee: no operator named ${JSON.stringify(username)}.`);
  }
}

export async function putManualSystem(
  db: Database,
  by: ChangeActor,
  key: string,
  input: ManualSystemInput,
): Promise<{ system: ManualSystemView; created: boolean }> {
  const names = input.fields.map((field) => field.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated !== undefined) throw invalid(`fields: the field name ${repeated} is used twice.`);
  const untranslatable = translationsProblem(input.translations, ['instructions'], 'manual system');
  if (untranslatable) throw invalid(untranslatable);
  await assertOperator(db, input.assignee);
  return db.transaction(async (tx) => {
    const { row, created } = await repo.upsert(tx, key, input);
    await recordChange(tx, by, created ? 'manual-system.create' : 'manual-system.update', {
      key,
      actions: input.actions,
      fields: names,
      assignee: input.assignee ?? null,
      respondent_email_set: typeof input.respondent_email === 'string',
      translations: Object.keys(input.translations ?? {}),
    });
    return { system: toManualSystemView(row), created };
  });
}

export async function readManualSystem(db: Queryable, key: string): Promise<ManualSystemView> {
  const row = await repo.find(db, key);
  if (!row) throw notFound(`No manual system with key ${key}.`);
  return toManualSystemView(row);
}

export async function listManualSystems(db: Queryable): Promise<ManualSystemView[]> {
  return (await repo.list(db)).map(toManualSystemView);
}

export async function deleteManualSystem(db: Database, by: ChangeActor, key: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await repo.remove(tx, key))) throw notFound(`No manual system with key ${key}.`);
    await recordChange(tx, by, 'manual-system.delete', { key });
  });
}
