// SQL of the privacy center's one settings row.
import type { Queryable } from '../db/database.ts';
import type { PrivacyCenterSettings } from './schemas.ts';

export const privacyCenterSettingsRepository = {
  async read(db: Queryable): Promise<PrivacyCenterSettings | undefined> {
    const { rows } = await db.query<PrivacyCenterSettings>(
      'SELECT title, organization_name, actions FROM privacy_center_settings',
    );
    return rows[0];
  },

  async write(db: Queryable, settings: PrivacyCenterSettings): Promise<void> {
    await db.query(
      `INSERT INTO privacy_center_settings (singleton, title, organization_name, actions, updated_at)
       VALUES (true, $1, $2, $3::jsonb, now())
       ON CONFLICT (singleton) DO UPDATE SET title = EXCLUDED.title,
         organization_name = EXCLUDED.organization_name, actions = EXCLUDED.actions, updated_at = now()`,
      [settings.title, settings.organization_name, JSON.stringify(settings.actions)],
    );
  },
};
