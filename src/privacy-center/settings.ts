// Saving the privacy center's settings (an operator's change, audited); reading them is
// privacy-center-settings/, below every room that needs them.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import type { Database } from '../db/database.ts';
import { invalid } from '../errors.ts';
import { translationsProblem } from '../i18n/operator-texts.ts';
import { policyRepository } from '../policies/repository.ts';
import { privacyCenterSettingsRepository as repo } from '../privacy-center-settings/repository.ts';
import type { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';

/** Replaces the settings; every action must name an existing policy, once. */
export async function updatePrivacyCenterSettings(
  db: Database,
  by: ChangeActor,
  settings: PrivacyCenterSettings,
): Promise<PrivacyCenterSettings> {
  const keys = settings.actions.map((action) => action.policy_key);
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
  if (duplicate !== undefined) throw invalid(`Policy ${duplicate} is listed twice in actions.`);
  const known = await policyRepository.idsByKey(db, keys);
  const unknown = keys.find((key) => !known.has(key));
  if (unknown !== undefined) throw invalid(`No policy with key ${unknown}.`);
  const untranslatable =
    translationsProblem(settings.translations, ['title'], 'privacy center') ??
    settings.actions
      .map((action) =>
        translationsProblem(action.translations, ['title', 'description'], `action ${action.policy_key}`),
      )
      .find((problem) => problem !== undefined);
  if (untranslatable) throw invalid(untranslatable);
  await db.transaction(async (tx) => {
    await repo.write(tx, settings);
    await recordChange(tx, by, 'privacy-center.update', {
      fields: Object.keys(settings),
      policy_keys: keys,
    });
  });
  return settings;
}
