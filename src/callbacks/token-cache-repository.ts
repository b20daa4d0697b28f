// SQL for the OAuth token cache of callback targets (table target_oauth_tokens, migration 005): its writes.
// A cached token is read with its connection (connectionRepository.callbackTarget). Sealed columns go in
// and out as opaque bytes; only TargetOAuth seals and opens them.
import type { Queryable } from '../db/database.ts';

export const tokenCacheRepository = {
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
