// The privacy center's settings: which policies the public may request, under which title, with which
// identity fields. Until an operator saves them nothing is published (the defaults below), so a fresh
// installation accepts no public request.
import type { Queryable } from '../db/database.ts';
import { invalid } from '../errors.ts';
import { policyRepository } from '../policies/repository.ts';
import type { PrivacyCenterAction, PrivacyCenterSettings } from './schemas.ts';
import { privacyCenterSettingsRepository as repo } from './settings-repository.ts';

export const DEFAULT_SETTINGS: PrivacyCenterSettings = {
  title: 'Privacy center',
  organization_name: 'Lethe',
  actions: [],
};

export async function readPrivacyCenterSettings(db: Queryable): Promise<PrivacyCenterSettings> {
  return (await repo.read(db)) ?? DEFAULT_SETTINGS;
}

export function publishedAction(
  settings: PrivacyCenterSettings,
  policyKey: string,
): PrivacyCenterAction | undefined {
  return settings.actions.find((action) => action.policy_key === policyKey);
}

/** Replaces the settings; every action must name an existing policy, once. */
export async function updatePrivacyCenterSettings(
  db: Queryable,
  settings: PrivacyCenterSettings,
): Promise<PrivacyCenterSettings> {
  const keys = settings.actions.map((action) => action.policy_key);
  const duplicate = keys.find((key, index) => keys.indexOf(key) !== index);
  if (duplicate !== undefined) throw invalid(`Policy ${duplicate} is listed twice in actions.`);
  const known = await policyRepository.idsByKey(db, keys);
  const unknown = keys.find((key) => !known.has(key));
  if (unknown !== undefined) throw invalid(`No policy with key ${unknown}.`);
  await repo.write(db, settings);
  return settings;
}
