// SQL of the privacy center's one settings row.
import type { Queryable } from '../db/database.ts';
import type { PrivacyCenterSettings } from './schemas.ts';

export const privacyCenterSettingsRepository = {
  async read(db: Queryable): Promise<PrivacyCenterSettings | undefined> {
    const { rows } = await db.query<PrivacyCenterSettings & { translations: object }>(
      'SELECT title, organization_name, actions, translations FROM privacy_center_settings',
    );
    const row = rows[0];
    if (!row) return undefined;
    // Settings saved without translations read back as they were saved.
    const { translations, ...rest } = row;
    return Object.keys(translations).length > 0 ? row : rest;
  },

  async write(db: Queryable, settings: PrivacyCenterSettings): Promise<void> {
    await db.query(
      `INSERT INTO privacy_center_settings (singleton, title, organization_name, actions, translations, updated_at)
       VALUES (true, $1, $2, $3::jsonb, $4::jsonb, now())
       ON CONFLICT (singleton) DO UPDATE SET title = EXCLUDED.title,
         organization_name = EXCLUDED.organization_name, actions = EXCLUDED.actions,
         translations = EXCLUDED.translations, updated_at = now()`,
      [
        settings.title,
        settings.organization_name,
        JSON.stringify(settings.actions),
        JSON.stringify(settings.translations ?? {}),
      ],
    );
  },
};
