// The one module that knows openid-client: discovery of the provider, the authorization URL (code flow with
// PKCE, state and nonce) and the code exchange, whose ID token openid-client validates (signature against
// the provider's keys, issuer, audience, expiry, nonce). Lethe never checks a token by hand. Callers see
// our names and one error class, OidcRefusal, for everything the provider or the browser got wrong.
import * as openid from 'openid-client';
import type { OidcConfig } from '../config.ts';

/** The sign-in could not be completed: a wrong state, a spent code, an invalid or expired ID token. */
export class OidcRefusal extends Error {
  override name = 'OidcRefusal';
}

/** The provider could not be reached or its discovery document is unusable. */
export class OidcUnavailable extends Error {
  override name = 'OidcUnavailable';
}

/** What a finished sign-in tells about the person; nothing here is a token. */
export interface ProvenPerson {
  subject: string;
  claims: Record<string, unknown>;
}

export class OidcClient {
  readonly #config: OidcConfig;
  #discovered: Promise<openid.Configuration> | undefined;

  constructor(config: OidcConfig) {
    this.#config = config;
  }

  /** Discovery once, kept; a failed one is tried again on the next sign-in. */
  #configuration(): Promise<openid.Configuration> {
    this.#discovered ??= this.#discover().catch((error: unknown) => {
      this.#discovered = undefined;
      throw error;
    });
    return this.#discovered;
  }

  async #discover(): Promise<openid.Configuration> {
    const issuer = new URL(this.#config.issuer);
    // Plain http only for a provider on this machine (a test provider, a local Keycloak); never across a network.
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
    try {
      return await openid.discovery(
        issuer,
        this.#config.clientId,
        { client_secret: this.#config.clientSecret, [openid.clockSkew]: this.#config.clockSkewSeconds },
        undefined,
        issuer.protocol === 'http:' && loopback ? { execute: [openid.allowInsecureRequests] } : undefined,
      );
    } catch (error) {
      throw new OidcUnavailable(
        `The identity provider at ${this.#config.issuer} could not be discovered: ${(error as Error).message}`,
      );
    }
  }

  /** The provider's authorization URL for one sign-in. */
  async authorizationUrl(input: { redirectUri: string; state: string; nonce: string; codeVerifier: string }) {
    const configuration = await this.#configuration();
    return openid
      .buildAuthorizationUrl(configuration, {
        redirect_uri: input.redirectUri,
        scope: this.#config.scopes,
        response_type: 'code',
        state: input.state,
        nonce: input.nonce,
        code_challenge: await openid.calculatePKCECodeChallenge(input.codeVerifier),
        code_challenge_method: 'S256',
      })
      .toString();
  }

  /**
   * Trades the code of the callback URL for tokens and answers the validated ID token's claims, with the
   * userinfo's claims under them when the ID token lacks `claimNeeded` (some providers put groups there).
   */
  async finish(
    callbackUrl: URL,
    checks: { state: string; nonce: string; codeVerifier: string; claimNeeded: string },
  ): Promise<ProvenPerson> {
    const configuration = await this.#configuration();
    let tokens: Awaited<ReturnType<typeof openid.authorizationCodeGrant>>;
    try {
      tokens = await openid.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new OidcRefusal(refusalOf(error));
    }
    const idToken = tokens.claims();
    if (!idToken) throw new OidcRefusal('The identity provider sent no ID token.');
    const claims: Record<string, unknown> = { ...idToken };
    if (claims[checks.claimNeeded] === undefined && configuration.serverMetadata().userinfo_endpoint) {
      try {
        const userinfo = await openid.fetchUserInfo(configuration, tokens.access_token, idToken.sub);
        for (const [name, value] of Object.entries(userinfo)) claims[name] ??= value;
      } catch (error) {
        throw new OidcRefusal(refusalOf(error));
      }
    }
    return { subject: idToken.sub, claims };
  }

  /** Where the console sends a signed-out operator to end the provider's session too, if it offers that. */
  async endSessionUrl(postLogoutRedirectUri: string): Promise<string | undefined> {
    try {
      const configuration = await this.#configuration();
      if (!configuration.serverMetadata().end_session_endpoint) return undefined;
      return openid
        .buildEndSessionUrl(configuration, { post_logout_redirect_uri: postLogoutRedirectUri })
        .toString();
    } catch {
      return undefined;
    }
  }
}

/** A sentence for the person in front of the browser; the library's words, never a token. */
function refusalOf(error: unknown): string {
  if (error instanceof openid.AuthorizationResponseError || error instanceof openid.ResponseBodyError) {
    const code = error.error;
    if (code === 'invalid_grant') {
      return 'The sign-in code was already used or has expired. Start the sign-in again.';
    }
    return `The identity provider refused the sign-in (${code}). Start the sign-in again.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (/state/i.test(message))
    return 'The sign-in answer does not belong to the sign-in this browser started.';
  if (/"exp"|expir|timestamp/i.test(message)) {
    return 'The ID token has expired (or is not valid yet). Start the sign-in again.';
  }
  if (/nonce/i.test(message)) return 'The ID token does not belong to this sign-in (its nonce differs).';
  if (/"aud"|audience|"iss"|issuer|azp/i.test(message)) {
    return 'The ID token was not issued to Lethe by the configured identity provider.';
  }
  return `The sign-in answer could not be verified: ${message}`;
}
