// SQL for consent_preferences (the current preference per identity and data use) and consent_history
// (every one recorded). Identities go in and out as their kind and consent index only.
import type { Queryable } from '../db/database.ts';

export interface PreferenceRecord {
  identityKind: string;
  identityIndex: Buffer;
  dataUse: string;
  optIn: boolean;
  source: 'privacy_request' | 'gpc';
  privacyRequestId: string | null;
}

export interface PreferenceRow {
  data_use: string;
  opt_in: boolean;
  source: 'privacy_request' | 'gpc';
  privacy_request_id: string | null;
  recorded_at: Date;
}

export const consentRepository = {
  /**
   * Records each preference as the current one of its identity and data use, and in the history; a
   * preference a request already recorded (a rerun of its rule) changes nothing.
   */
  async record(tx: Queryable, records: readonly PreferenceRecord[]): Promise<void> {
    // One preference per identity and data use: the last one given wins.
    const latest = new Map(
      records.map((record) => [
        `${record.identityKind}:${record.identityIndex.toString('hex')}:${record.dataUse}`,
        record,
      ]),
    );
    if (latest.size === 0) return;
    const rows = JSON.stringify(
      [...latest.values()].map((record) => ({
        kind: record.identityKind,
        index: record.identityIndex.toString('base64'),
        data_use: record.dataUse,
        opt_in: record.optIn,
        source: record.source,
        request: record.privacyRequestId,
      })),
    );
    await tx.query(
      `WITH item AS (
         SELECT r->>'kind' AS kind, decode(r->>'index', 'base64') AS idx, r->>'data_use' AS data_use,
                (r->>'opt_in')::boolean AS opt_in, r->>'source' AS source, r->>'request' AS request, n
           FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS items(r, n)),
       logged AS (
         INSERT INTO consent_history (identity_kind, identity_index, data_use, opt_in, source, privacy_request_id)
         SELECT kind, idx, data_use, opt_in, source, request FROM item ORDER BY n
         ON CONFLICT DO NOTHING
         RETURNING identity_kind, identity_index, data_use, opt_in, source, privacy_request_id)
       INSERT INTO consent_preferences (identity_kind, identity_index, data_use, opt_in, source, privacy_request_id)
       SELECT identity_kind, identity_index, data_use, opt_in, source, privacy_request_id FROM logged
       ON CONFLICT (identity_kind, identity_index, data_use) DO UPDATE
         SET opt_in = EXCLUDED.opt_in, source = EXCLUDED.source,
             privacy_request_id = EXCLUDED.privacy_request_id, updated_at = now()`,
      [rows],
    );
  },

  async current(db: Queryable, kind: string, index: Buffer): Promise<PreferenceRow[]> {
    const { rows } = await db.query<PreferenceRow>(
      `SELECT data_use, opt_in, source, privacy_request_id, updated_at AS recorded_at
         FROM consent_preferences WHERE identity_kind = $1 AND identity_index = $2 ORDER BY data_use`,
      [kind, index],
    );
    return rows;
  },

  /** The latest `limit` entries of the history, oldest first. */
  async history(db: Queryable, kind: string, index: Buffer, limit: number): Promise<PreferenceRow[]> {
    const { rows } = await db.query<PreferenceRow>(
      `SELECT * FROM (
         SELECT id, data_use, opt_in, source, privacy_request_id, recorded_at
           FROM consent_history WHERE identity_kind = $1 AND identity_index = $2
          ORDER BY id DESC LIMIT $3) latest
        ORDER BY id`,
      [kind, index, limit],
    );
    return rows;
  },
};
