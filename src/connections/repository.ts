// SQL for the connections table, and the one read of a callback target (its connection with the cached
// OAuth token of target_oauth_tokens). Sealed columns go in and out as opaque bytes; only secrets.ts seals
// and opens them. The view query never selects them: it only learns whether they are set.
import type { Queryable } from '../db/database.ts';

/** A connection's signing secrets as stored: the current one, and the previous one during its grace period. */
export interface SealedSigningSecrets {
  current: Uint8Array | null;
  previous: Uint8Array | null;
}

export interface OAuthConfigurationWithCachedToken {
  oauth_grant_type: string | null;
  oauth_token_url: string | null;
  oauth_scope: string | null;
  oauth_client_id: string | null;
  oauth_client_secret_sealed: Uint8Array | null;
  cached_fingerprint: string | null;
  cached_token_sealed: Uint8Array | null;
  /** Whether the cached token is still before its refresh moment, by the database's clock. */
  cached_fresh: boolean | null;
}

/** Everything one callback needs of its connection (see callbackTarget). */
export interface CallbackTarget {
  key: string;
  secrets_url: string | null;
  secrets_authorization_sealed: Uint8Array | null;
  /** The extra callback headers, sealed as one JSON object (secrets.ts). */
  secrets_headers_sealed: Uint8Array | null;
  signing: SealedSigningSecrets;
  oauth: OAuthConfigurationWithCachedToken;
}

/** What the names of CALLBACK_TARGET_COLUMNS start with. */
export const CALLBACK_TARGET_PREFIX = 'callback_target_';

/**
 * The columns of a callback target (see callbackTarget), each named with CALLBACK_TARGET_PREFIX so that a
 * statement doing other work can read a target beside its own columns (the privacy-request executor reads
 * the next call's target in the statement that confirms the step before it); `callbackTargetOf` turns
 * them into one.
 */
export const CALLBACK_TARGET_COLUMNS = `c.key AS callback_target_key,
       c.secrets_url AS callback_target_secrets_url,
       c.secrets_authorization_sealed AS callback_target_secrets_authorization_sealed,
       c.secrets_headers_sealed AS callback_target_secrets_headers_sealed,
       c.signing_secret_sealed AS callback_target_signing_current,
       CASE WHEN c.previous_signing_secret_expires_at > now() THEN c.previous_signing_secret_sealed END
         AS callback_target_signing_previous,
       c.oauth_grant_type AS callback_target_oauth_grant_type,
       c.oauth_token_url AS callback_target_oauth_token_url,
       c.oauth_scope AS callback_target_oauth_scope,
       c.oauth_client_id AS callback_target_oauth_client_id,
       c.oauth_client_secret_sealed AS callback_target_oauth_client_secret_sealed,
       t.config_fingerprint AS callback_target_cached_fingerprint,
       t.access_token_sealed AS callback_target_cached_token_sealed,
       t.refresh_at > now() AS callback_target_cached_fresh`;

/** The connection of key `keySql` (a parameter or a column) with its cached OAuth token, as `c` and `t`. */
export function callbackTargetSource(keySql: string): string {
  return `connections c LEFT JOIN target_oauth_tokens t ON t.connection_key = c.key WHERE c.key = ${keySql}`;
}

/** The callback target in a row read with CALLBACK_TARGET_COLUMNS; undefined when no connection matched. */
export function callbackTargetOf(row: Record<string, unknown>): CallbackTarget | undefined {
  const column = <Value>(name: string) => row[`${CALLBACK_TARGET_PREFIX}${name}`] as Value;
  const key = column<string | null>('key');
  if (key === null || key === undefined) return undefined;
  return {
    key,
    secrets_url: column('secrets_url'),
    secrets_authorization_sealed: column('secrets_authorization_sealed'),
    secrets_headers_sealed: column('secrets_headers_sealed'),
    signing: { current: column('signing_current'), previous: column('signing_previous') },
    oauth: {
      oauth_grant_type: column('oauth_grant_type'),
      oauth_token_url: column('oauth_token_url'),
      oauth_scope: column('oauth_scope'),
      oauth_client_id: column('oauth_client_id'),
      oauth_client_secret_sealed: column('oauth_client_secret_sealed'),
      cached_fingerprint: column('cached_fingerprint'),
      cached_token_sealed: column('cached_token_sealed'),
      cached_fresh: column('cached_fresh'),
    },
  };
}

export interface ConnectionViewRow {
  key: string;
  name: string;
  connection_type: string;
  access: string;
  description: string | null;
  secrets_url: string | null;
  has_authorization: boolean;
  secrets_header_names: string[] | null;
  has_signing_secret: boolean;
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
         c.secrets_authorization_sealed IS NOT NULL AS has_authorization, c.secrets_header_names,
         c.signing_secret_sealed IS NOT NULL AS has_signing_secret,
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

  /**
   * Creates or updates a connection; answers whether it was created. The signing secret is stored only by
   * the creation: an update never replaces it (rotation does).
   */
  async upsert(
    db: Queryable,
    connection: ConnectionDefinition,
    signingSecretSealed: Buffer,
  ): Promise<boolean> {
    const { rows } = await db.query<{ created: boolean }>(
      `INSERT INTO connections (key, name, connection_type, access, description, signing_secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $7)
       ON CONFLICT (key) DO UPDATE SET
         name = EXCLUDED.name,
         connection_type = EXCLUDED.connection_type,
         access = EXCLUDED.access,
         description = CASE WHEN $6 THEN EXCLUDED.description ELSE connections.description END,
         updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [
        connection.key,
        connection.name,
        connection.connectionType,
        connection.access,
        connection.description ?? null,
        connection.description !== undefined,
        signingSecretSealed,
      ],
    );
    return rows[0]?.created === true;
  },

  /**
   * Installs a new signing secret. With a grace period the current one becomes the previous secret until
   * then (a previous one still in its grace is dropped); without, the current one is gone at once.
   * Answers when the previous secret stops signing, null for no grace, undefined for no connection.
   */
  async rotateSigningSecret(
    db: Queryable,
    key: string,
    sealed: Buffer,
    graceSeconds: number,
  ): Promise<{ previous_expires_at: Date | null } | undefined> {
    const { rows } = await db.query<{ previous_expires_at: Date | null }>(
      `UPDATE connections SET
         previous_signing_secret_sealed = CASE WHEN $3::int > 0 THEN signing_secret_sealed END,
         previous_signing_secret_expires_at =
           CASE WHEN $3::int > 0 AND signing_secret_sealed IS NOT NULL
             THEN now() + make_interval(secs => $3::int) END,
         signing_secret_sealed = $2,
         updated_at = now()
       WHERE key = $1
       RETURNING previous_signing_secret_expires_at AS previous_expires_at`,
      [key, sealed, graceSeconds],
    );
    return rows[0];
  },

  /** The sealed secrets a callback is signed with now: the current one and a previous one still in its grace. */
  async signingSecrets(db: Queryable, key: string): Promise<SealedSigningSecrets | undefined> {
    const { rows } = await db.query<SealedSigningSecrets>(
      `SELECT signing_secret_sealed AS current,
              CASE WHEN previous_signing_secret_expires_at > now() THEN previous_signing_secret_sealed END
                AS previous
         FROM connections WHERE key = $1`,
      [key],
    );
    return rows[0];
  },

  /**
   * Everything one callback needs of its connection, in one read: the URL, the static authorization, the
   * signing secrets and the OAuth configuration with its cached token. Read for every call, so a change
   * of any of them applies from the next call on.
   */
  async callbackTarget(db: Queryable, key: string): Promise<CallbackTarget | undefined> {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT ${CALLBACK_TARGET_COLUMNS} FROM ${callbackTargetSource('$1')}`,
      [key],
    );
    return rows[0] ? callbackTargetOf(rows[0]) : undefined;
  },

  /** Gives a connection made before signing existed its first secret, unless another process just did. */
  async addMissingSigningSecret(db: Queryable, key: string, sealed: Buffer): Promise<void> {
    await db.query(
      'UPDATE connections SET signing_secret_sealed = $2 WHERE key = $1 AND signing_secret_sealed IS NULL',
      [key, sealed],
    );
  },

  /** Locks the row for the rest of the transaction; answers whether the connection exists and has OAuth. */
  async lock(
    db: Queryable,
    key: string,
  ): Promise<{ has_oauth: boolean; secrets_url: string | null } | undefined> {
    const { rows } = await db.query<{ has_oauth: boolean; secrets_url: string | null }>(
      'SELECT oauth_grant_type IS NOT NULL AS has_oauth, secrets_url FROM connections WHERE key = $1 FOR UPDATE',
      [key],
    );
    return rows[0];
  },

  async replaceSecrets(
    db: Queryable,
    key: string,
    secrets: {
      url: string;
      authorizationSealed: Buffer | null;
      headers: { names: string[]; sealed: Buffer } | null;
    },
  ) {
    await db.query(
      `UPDATE connections SET secrets_url = $2, secrets_authorization_sealed = $3,
              secrets_header_names = $4, secrets_headers_sealed = $5, updated_at = now()
        WHERE key = $1`,
      [
        key,
        secrets.url,
        secrets.authorizationSealed,
        secrets.headers?.names ?? null,
        secrets.headers?.sealed ?? null,
      ],
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
