// SQL for the connections table. Sealed columns go in and out as opaque bytes; only the service seals
// and opens them. The view query never selects them: it only learns whether they are set.
import type { Queryable } from '../db/database.ts';

export interface ConnectionViewRow {
  key: string;
  name: string;
  connection_type: string;
  access: string;
  description: string | null;
  secrets_url: string | null;
  has_authorization: boolean;
  oauth_grant_type: string | null;
  oauth_token_url: string | null;
  oauth_scope: string | null;
  oauth_client_id: string | null;
  created_at: Date;
  updated_at: Date;
  webhooks_using: number;
}

export interface ConnectionDefinition {
  key: string;
  name: string;
  connectionType: string;
  access: string;
  /** undefined keeps the stored description on update; null clears it. */
  description: string | null | undefined;
}

export interface OAuthColumns {
  grantType: string;
  tokenUrl: string;
  scope: string;
  clientId: string;
  clientSecretSealed: Buffer;
}

export interface OAuthRow {
  oauth_grant_type: string | null;
  oauth_token_url: string | null;
  oauth_scope: string | null;
  oauth_client_id: string | null;
  oauth_client_secret_sealed: Uint8Array | null;
}

export interface WebhookUse {
  kind: 'policy' | 'pre_approval';
  policy_key: string | null;
  timing: string | null;
  key: string;
}

const VIEW = `
  SELECT c.key, c.name, c.connection_type, c.access, c.description, c.secrets_url,
         c.secrets_authorization_sealed IS NOT NULL AS has_authorization,
         c.oauth_grant_type, c.oauth_token_url, c.oauth_scope, c.oauth_client_id,
         c.created_at, c.updated_at,
         ((SELECT count(*) FROM policy_webhooks w WHERE w.connection_key = c.key)
          + (SELECT count(*) FROM pre_approval_webhooks p WHERE p.connection_key = c.key))::int AS webhooks_using
    FROM connections c`;

export const connectionRepository = {
  async find(db: Queryable, key: string): Promise<ConnectionViewRow | undefined> {
    const { rows } = await db.query<ConnectionViewRow>(`${VIEW} WHERE c.key = $1`, [key]);
    return rows[0];
  },

  async page(db: Queryable, limit: number, offset: number): Promise<ConnectionViewRow[]> {
    const { rows } = await db.query<ConnectionViewRow>(`${VIEW} ORDER BY c.key LIMIT $1 OFFSET $2`, [
      limit,
      offset,
    ]);
    return rows;
  },

  async count(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM connections');
    return rows[0]?.total ?? 0;
  },

  async upsert(db: Queryable, connection: ConnectionDefinition): Promise<void> {
    await db.query(
      `INSERT INTO connections (key, name, connection_type, access, description)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key) DO UPDATE SET
         name = EXCLUDED.name,
         connection_type = EXCLUDED.connection_type,
         access = EXCLUDED.access,
         description = CASE WHEN $6 THEN EXCLUDED.description ELSE connections.description END,
         updated_at = now()`,
      [
        connection.key,
        connection.name,
        connection.connectionType,
        connection.access,
        connection.description ?? null,
        connection.description !== undefined,
      ],
    );
  },

  /** Locks the row for the rest of the transaction; answers whether the connection exists and has OAuth. */
  async lock(db: Queryable, key: string): Promise<{ has_oauth: boolean } | undefined> {
    const { rows } = await db.query<{ has_oauth: boolean }>(
      'SELECT oauth_grant_type IS NOT NULL AS has_oauth FROM connections WHERE key = $1 FOR UPDATE',
      [key],
    );
    return rows[0];
  },

  async replaceSecrets(db: Queryable, key: string, url: string, authorizationSealed: Buffer | null) {
    await db.query(
      `UPDATE connections SET secrets_url = $2, secrets_authorization_sealed = $3, updated_at = now()
        WHERE key = $1`,
      [key, url, authorizationSealed],
    );
  },

  /** The stored OAuth columns, row locked for the rest of the transaction; undefined for no connection. */
  async findOAuth(db: Queryable, key: string): Promise<OAuthRow | undefined> {
    const { rows } = await db.query<OAuthRow>(
      `SELECT oauth_grant_type, oauth_token_url, oauth_scope, oauth_client_id, oauth_client_secret_sealed
         FROM connections WHERE key = $1 FOR UPDATE`,
      [key],
    );
    return rows[0];
  },

  async replaceOAuth(db: Queryable, key: string, oauth: OAuthColumns | null) {
    await db.query(
      `UPDATE connections SET oauth_grant_type = $2, oauth_token_url = $3, oauth_scope = $4,
              oauth_client_id = $5, oauth_client_secret_sealed = $6, updated_at = now()
        WHERE key = $1`,
      [
        key,
        oauth?.grantType ?? null,
        oauth?.tokenUrl ?? null,
        oauth?.scope ?? null,
        oauth?.clientId ?? null,
        oauth?.clientSecretSealed ?? null,
      ],
    );
  },

  async webhookUses(db: Queryable, key: string): Promise<WebhookUse[]> {
    const { rows } = await db.query<WebhookUse>(
      `SELECT 'policy' AS kind, p.key AS policy_key, w.timing, w.key
         FROM policy_webhooks w JOIN policies p ON p.id = w.policy_id
        WHERE w.connection_key = $1
       UNION ALL
       SELECT 'pre_approval' AS kind, NULL AS policy_key, NULL AS timing, a.key
         FROM pre_approval_webhooks a
        WHERE a.connection_key = $1
       ORDER BY 1, 2, 3, 4`,
      [key],
    );
    return rows;
  },

  async remove(db: Queryable, key: string): Promise<boolean> {
    const { rowCount } = await db.query('DELETE FROM connections WHERE key = $1', [key]);
    return rowCount > 0;
  },
};
