// SQL for the OAuth token cache of callback targets (table target_oauth_tokens, migration 005). Sealed
// columns go in and out as opaque bytes; only TargetOAuth seals and opens them.
import type { Queryable } from '../db/database.ts';

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

export const tokenCacheRepository = {
  /** A connection's OAuth configuration and its cached token, in one read; undefined for no connection. */
  async find(db: Queryable, connectionKey: string): Promise<OAuthConfigurationWithCachedToken | undefined> {
    const { rows } = await db.query<OAuthConfigurationWithCachedToken>(
      `SELECT c.oauth_grant_type, c.oauth_token_url, c.oauth_scope, c.oauth_client_id,
              c.oauth_client_secret_sealed,
              t.config_fingerprint AS cached_fingerprint, t.access_token_sealed AS cached_token_sealed,
              t.refresh_at > now() AS cached_fresh
         FROM connections c LEFT JOIN target_oauth_tokens t ON t.connection_key = c.key
        WHERE c.key = $1`,
      [connectionKey],
    );
    return rows[0];
  },

  /** Stores (or replaces) the connection's token; skipped when the connection was deleted meanwhile. */
  async store(
    db: Queryable,
    connectionKey: string,
    fingerprint: string,
    tokenSealed: Buffer,
    usableForMs: number,
  ): Promise<void> {
    await db.query(
      `INSERT INTO target_oauth_tokens (connection_key, config_fingerprint, access_token_sealed, refresh_at)
       SELECT key, $2, $3, now() + make_interval(secs => $4::double precision / 1000)
         FROM connections WHERE key = $1
       ON CONFLICT (connection_key) DO UPDATE SET
         config_fingerprint = EXCLUDED.config_fingerprint,
         access_token_sealed = EXCLUDED.access_token_sealed,
         refresh_at = EXCLUDED.refresh_at,
         fetched_at = now()`,
      [connectionKey, fingerprint, tokenSealed, usableForMs],
    );
  },

  async remove(db: Queryable, connectionKey: string): Promise<void> {
    await db.query('DELETE FROM target_oauth_tokens WHERE connection_key = $1', [connectionKey]);
  },
};
