// Reading the privacy center's settings. Until an operator saves them nothing is published (the defaults
// below), so a fresh installation accepts no public request. The public pages, the request's messages
// and the access report all read them here; privacy-center/ owns the writing.
import type { Queryable } from '../db/database.ts';
import { translatedText } from '../i18n/operator-texts.ts';
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

/**
 * The settings as a reader of `language` sees them: the title and each action's title and description in
 * their translation where the operator gave one, else as written.
 */
export function settingsIn(settings: PrivacyCenterSettings, language: string): PrivacyCenterSettings {
  return {
    ...settings,
    title: translatedText(settings.title, settings.translations, language, 'title'),
    actions: settings.actions.map((action) => ({
      ...action,
      title: translatedText(action.title, action.translations, language, 'title'),
      description: translatedText(action.description, action.translations, language, 'description'),
    })),
  };
}

export function publishedAction(
  settings: PrivacyCenterSettings,
  policyKey: string,
): PrivacyCenterAction | undefined {
  return settings.actions.find((action) => action.policy_key === policyKey);
}
