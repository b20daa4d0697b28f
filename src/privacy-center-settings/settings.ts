// Reading the privacy center's settings. Until an operator saves them nothing is published (the defaults
// below), so a fresh installation accepts no public request. The public pages, the request's messages
// and the access report all read them here; privacy-center/ owns the writing.
import type { Queryable } from '../db/database.ts';
import { privacyCenterSettingsRepository as repo } from './repository.ts';
import type { PrivacyCenterAction, PrivacyCenterSettings } from './schemas.ts';

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
