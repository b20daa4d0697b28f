// OAuth 2.0 to callback targets: the bearer token a callback presents when its connection has an `oauth`
// resource. Tokens come from the connection's token_url (client credentials, see token-client.ts) and are
// cached sealed in target_oauth_tokens, shared by every process on the store, until shortly before they
// expire. A cached token is bound to a fingerprint of the OAuth configuration, so a PUT or PATCH of the
// oauth resource (or its deletion) stops its use at once. Concurrent callers in one process share one fetch.
// It must never log, return in an error, or store unsealed a client secret or a token.
import { createHash } from 'node:crypto';
import { Agent } from 'undici';
import type { Config } from '../config.ts';
import { connectionRepository, type OAuthConfigurationWithCachedToken } from '../connections/repository.ts';
import { openOAuthClientSecret } from '../connections/secrets.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import { guardedLookup } from '../net/destination-guard.ts';
import { tokenCacheRepository } from './token-cache-repository.ts';
import { requestAccessToken, TargetAuthError } from './token-client.ts';

export { TargetAuthError } from './token-client.ts';

/** A token is used until this long before it expires: 30 s, or a tenth of its life for short-lived ones. */
export const REFRESH_MARGIN_MS = 30_000;
const REFRESH_MARGIN_SHARE = 0.1;

interface OAuthConfiguration {
  grantType: string;
  tokenUrl: string;
  scope: string;
  clientId: string;
  clientSecretSealed: Uint8Array;
}

export class TargetOAuth {
  readonly #db: Database;
  readonly #config: Config;
  readonly #keyring: Keyring;
  readonly #tokenKey: Buffer;
  readonly #agent: Agent;
  readonly #inFlight = new Map<string, Promise<string>>();
  /**
   * The last token each flight brought and when it landed. A caller whose read of the cache began before
   * a flight landed saw no token, yet finds no flight left to join: it takes this one instead of fetching
   * a second (a race the test of one fetch for five callers caught).
   */
  readonly #landed = new Map<string, { token: string; at: number }>();

  constructor(services: { db: Database; keyring: Keyring; config: Config }) {
    this.#db = services.db;
    this.#config = services.config;
    this.#keyring = services.keyring;
    this.#tokenKey = services.keyring.key('target-oauth-token');
    this.#agent = new Agent({
      connect: { lookup: guardedLookup(services.config), timeout: services.config.webhookTimeoutMs },
      headersTimeout: services.config.webhookTimeoutMs,
      bodyTimeout: services.config.webhookTimeoutMs,
    });
  }

  /**
   * The access token to send as `Authorization: Bearer <token>` to the connection's target (the bare token,
   * without the scheme), or null when the connection has no OAuth configuration (then the static
   * authorization secret, if any, applies). Throws TargetAuthError when no token can be obtained.
   */
  async bearerFor(connectionKey: string): Promise<string | null> {
    const readAt = performance.now();
    const target = await connectionRepository.callbackTarget(this.#db, connectionKey);
    return this.bearerWith(connectionKey, target?.oauth, readAt);
  }

  /**
   * `bearerFor` with the connection's OAuth configuration and cached token already read, the read having
   * begun at `readAt` (performance.now()).
   */
  async bearerWith(
    connectionKey: string,
    row: OAuthConfigurationWithCachedToken | undefined,
    readAt = performance.now(),
  ): Promise<string | null> {
    const configuration = row && configurationOf(row);
    if (!row || !configuration) {
      if (row?.cached_token_sealed) await tokenCacheRepository.remove(this.#db, connectionKey);
      return null;
    }
    const fingerprint = fingerprintOf(configuration);
    const cached =
      row.cached_fresh && row.cached_fingerprint === fingerprint ? row.cached_token_sealed : null;
    if (cached) {
      const token = this.#openCachedToken(connectionKey, fingerprint, cached);
      if (token !== undefined) return token;
    }
    const flightKey = `${connectionKey}\n${fingerprint}`;
    const landed = this.#landed.get(flightKey);
    if (landed && landed.at >= readAt) return landed.token;
    let flight = this.#inFlight.get(flightKey);
    if (!flight) {
      flight = this.#fetchAndCache(connectionKey, fingerprint, configuration)
        .then((token) => {
          this.#landed.set(flightKey, { token, at: performance.now() });
          return token;
        })
        .finally(() => this.#inFlight.delete(flightKey));
      this.#inFlight.set(flightKey, flight);
    }
    return flight;
  }

  /** Drops the cached token of the connection for every process (after the target refused it with 401). */
  async forget(connectionKey: string): Promise<void> {
    for (const flightKey of this.#landed.keys()) {
      if (flightKey.startsWith(`${connectionKey}\n`)) this.#landed.delete(flightKey);
    }
    await tokenCacheRepository.remove(this.#db, connectionKey);
  }

  /** Closes the kept-alive connections to token endpoints. */
  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #fetchAndCache(connectionKey: string, fingerprint: string, configuration: OAuthConfiguration) {
    let clientSecret: string;
    try {
      clientSecret = openOAuthClientSecret(this.#keyring, connectionKey, configuration.clientSecretSealed);
    } catch {
      throw new TargetAuthError(
        connectionKey,
        'unreadable_configuration',
        'the stored OAuth client secret cannot be opened (was LETHE_ENCRYPTION_KEY changed?); set the oauth resource again',
      );
    }
    const startedAt = performance.now();
    const issued = await requestAccessToken(this.#agent, this.#config, {
      connectionKey,
      tokenUrl: configuration.tokenUrl,
      clientId: configuration.clientId,
      clientSecret,
      scope: configuration.scope,
    });
    const lifetimeMs = issued.expiresInSeconds * 1000;
    const usableForMs =
      lifetimeMs -
      Math.min(REFRESH_MARGIN_MS, lifetimeMs * REFRESH_MARGIN_SHARE) -
      (performance.now() - startedAt);
    if (usableForMs > 0) {
      const sealed = seal(this.#tokenKey, issued.accessToken, cachedTokenAad(connectionKey, fingerprint));
      await tokenCacheRepository.store(this.#db, connectionKey, fingerprint, sealed, Math.floor(usableForMs));
    }
    return issued.accessToken;
  }

  /** The cached token, or undefined when it cannot be opened (another key): then it is fetched anew. */
  #openCachedToken(connectionKey: string, fingerprint: string, sealed: Uint8Array): string | undefined {
    try {
      return openText(this.#tokenKey, sealed, cachedTokenAad(connectionKey, fingerprint));
    } catch {
      return undefined;
    }
  }
}

const cachedTokenAad = (connectionKey: string, fingerprint: string) =>
  `target-oauth-token:${connectionKey}:${fingerprint}`;

function configurationOf(row: OAuthConfigurationWithCachedToken): OAuthConfiguration | undefined {
  const { oauth_grant_type: grantType, oauth_token_url: tokenUrl, oauth_scope: scope } = row;
  const { oauth_client_id: clientId, oauth_client_secret_sealed: clientSecretSealed } = row;
  if (
    grantType === null ||
    tokenUrl === null ||
    scope === null ||
    clientId === null ||
    clientSecretSealed === null
  ) {
    return undefined;
  }
  return { grantType, tokenUrl, scope, clientId, clientSecretSealed };
}

/**
 * Identifies the configuration a token was fetched with. The sealed client secret stands for the secret:
 * every PUT or PATCH that sets a secret seals it afresh (new nonce), so even re-sending the same secret
 * changes the fingerprint, while the hash reveals nothing about it.
 */
function fingerprintOf(configuration: OAuthConfiguration): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        configuration.grantType,
        configuration.tokenUrl,
        configuration.scope,
        configuration.clientId,
        Buffer.from(configuration.clientSecretSealed).toString('base64'),
      ]),
    )
    .digest('hex');
}
