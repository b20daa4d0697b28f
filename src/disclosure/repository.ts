// SQL for disclosures: one row per datastore or connection that has one.
import type { Queryable } from '../db/database.ts';
import type { DisclosureView } from './schemas.ts';

export type DisclosureKind = 'datastore' | 'connection';

interface DisclosureRow {
  name: string;
  purposes: string[];
  recipients: string[];
  retention: string;
  source: string;
  automated_decisions: string;
  updated_at: Date;
}

const toView = (row: DisclosureRow): DisclosureView => ({
  purposes: row.purposes,
  recipients: row.recipients,
  retention: row.retention,
  source: row.source,
  automated_decisions: row.automated_decisions,
  updated_at: row.updated_at.toISOString(),
});

export const disclosureRepository = {
  async put(
    db: Queryable,
    kind: DisclosureKind,
    name: string,
    disclosure: Omit<DisclosureView, 'updated_at'>,
  ): Promise<DisclosureView> {
    const { rows } = await db.query<DisclosureRow>(
      `INSERT INTO disclosures (kind, name, purposes, recipients, retention, source, automated_decisions)
       VALUES ($1, $2, $3::jsonb, $4::jsonb, $5, $6, $7)
       ON CONFLICT (kind, name) DO UPDATE
         SET purposes = EXCLUDED.purposes, recipients = EXCLUDED.recipients, retention = EXCLUDED.retention,
             source = EXCLUDED.source, automated_decisions = EXCLUDED.automated_decisions, updated_at = now()
       RETURNING *`,
      [
        kind,
        name,
        JSON.stringify(disclosure.purposes),
        JSON.stringify(disclosure.recipients),
        disclosure.retention,
        disclosure.source,
        disclosure.automated_decisions,
      ],
    );
    return toView(rows[0] as DisclosureRow);
  },

  async of(
    db: Queryable,
    kind: DisclosureKind,
    names: readonly string[],
  ): Promise<Map<string, DisclosureView>> {
    if (names.length === 0) return new Map();
    const { rows } = await db.query<DisclosureRow>(
      'SELECT * FROM disclosures WHERE kind = $1 AND name = ANY($2::text[])',
      [kind, [...new Set(names)]],
    );
    return new Map(rows.map((row) => [row.name, toView(row)]));
  },
};
