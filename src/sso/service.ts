// OpenID Connect sign-in (docs/operators.md): GET /v1/oidc/login starts it, the provider sends the browser
// back to the callback, and the console trades a one-time hand-off code for the same session a password
// sign-in gives. The state is random and bound to the browser that started the sign-in (a cookie, its
// digest stored); the PKCE verifier and the nonce are derived from the state under a server key, so a
// stolen state without the key makes neither. Every row is spent on use: a replayed callback finds nothing.
import type { AuditOrigin } from '../audit/audit-log.ts';
import type { OidcConfig } from '../config.ts';
import { digest, generateSecret } from '../crypto/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { USERNAME_PATTERN } from '../operators/account.ts';
import type { OperatorService } from '../operators/service.ts';
import type { LoginAnswer } from '../operators/sign-in.ts';
import { OidcClient, OidcRefusal } from './oidc-client.ts';
import { SignInRefused } from './errors.ts';
import { handoffRepository, signInRepository } from './repository.ts';
import { type SignInDerivation, signInDerivation } from './sign-in-secrets.ts';

/** How long a started sign-in waits for the provider's answer. */
const SIGN_IN_TTL_SECONDS = 600;
/** How long the console has to trade its hand-off code. */
const HANDOFF_TTL_SECONDS = 60;

export class SsoService {
  readonly #db: Database;
  readonly #config: OidcConfig;
  readonly #operators: OperatorService;
  readonly #client: OidcClient;
  readonly #derive: SignInDerivation;

  constructor(db: Database, config: OidcConfig, operators: OperatorService, keyring: Keyring) {
    this.#db = db;
    this.#config = config;
    this.#operators = operators;
    this.#client = new OidcClient(config);
    this.#derive = signInDerivation(keyring);
  }

  get providerName(): string {
    return this.#config.name;
  }

  redirectUri(publicBaseUrl: string): string {
    return this.#config.redirectUrl ?? `${publicBaseUrl}/v1/oidc/callback`;
  }

  /** Starts a sign-in: the provider's URL to send the browser to, and the browser secret to set as a cookie. */
  async start(redirectUri: string): Promise<{ url: string; browserSecret: string }> {
    const state = generateSecret();
    const browserSecret = generateSecret();
    const url = await this.#client.authorizationUrl({
      redirectUri,
      state,
      nonce: this.#derive('nonce', state),
      codeVerifier: this.#derive('pkce', state),
    });
    await signInRepository.removeExpired(this.#db);
    await signInRepository.insert(this.#db, {
      stateDigest: digest(state),
      browserDigest: digest(browserSecret),
      ttlSeconds: SIGN_IN_TTL_SECONDS,
    });
    return { url, browserSecret };
  }

  /**
   * Finishes the sign-in the callback URL answers: the state must be one this browser started and not yet
   * spent; openid-client checks the code (PKCE), the ID token and its nonce. The account is admitted (or
   * refused) by the operator service; the answer is a one-time code for the console.
   */
  async finish(callbackUrl: URL, browserSecret: string | undefined, origin: AuditOrigin): Promise<string> {
    const state = callbackUrl.searchParams.get('state');
    const error = callbackUrl.searchParams.get('error');
    if (error) {
      throw new SignInRefused(
        `The identity provider did not sign you in (${error.slice(0, 100)}). Start the sign-in again.`,
        400,
      );
    }
    if (!state || !callbackUrl.searchParams.get('code')) {
      throw new SignInRefused(
        'This address is only for the identity provider to return to after a sign-in.',
        400,
      );
    }
    const started = await signInRepository.take(this.#db, digest(state));
    if (!started || !browserSecret || !digest(browserSecret).equals(started.browser_digest)) {
      throw new SignInRefused(
        'This sign-in was not started in this browser, was already completed, or has expired. Start the sign-in again.',
        400,
      );
    }
    let person;
    try {
      person = await this.#client.finish(callbackUrl, {
        state,
        nonce: this.#derive('nonce', state),
        codeVerifier: this.#derive('pkce', state),
        claimNeeded: this.#config.rolesClaim,
      });
    } catch (caught) {
      if (caught instanceof OidcRefusal) throw new SignInRefused(caught.message, 400);
      throw caught;
    }
    const admitted = await this.#operators.providerAccounts.admit(
      {
        subject: person.subject,
        username: usernameOf(person.claims, person.subject),
        email: text(person.claims.email),
        displayName: text(person.claims.name),
        groups: groupsOf(person.claims[this.#config.rolesClaim]),
      },
      origin,
    );
    if (!admitted.admitted) throw new SignInRefused(admitted.reason, 403);
    const code = generateSecret();
    await handoffRepository.insert(this.#db, {
      codeDigest: digest(code),
      username: admitted.username,
      ttlSeconds: HANDOFF_TTL_SECONDS,
    });
    return code;
  }

  /** The console's trade: a live hand-off code for the operator's session (audited as an `oidc` sign-in). */
  async redeem(code: string, origin: AuditOrigin): Promise<LoginAnswer | undefined> {
    const username = await handoffRepository.take(this.#db, digest(code));
    if (!username) return undefined;
    return this.#operators.signIn.startProviderSession(username, origin);
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 500) : null;
}

/** The groups claim as a list of names: an array of strings, or one string (some providers send that). */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return [...new Set(value.filter((group): group is string => typeof group === 'string'))].slice(0, 500);
}

/** The username of a new account: the provider's preferred username, else the email, else the subject. */
function usernameOf(claims: Record<string, unknown>, subject: string): string {
  for (const candidate of [claims.preferred_username, claims.email, subject]) {
    const name = text(candidate)?.toLowerCase();
    if (name && new RegExp(USERNAME_PATTERN).test(name)) return name;
  }
  return (text(claims.preferred_username) ?? subject).toLowerCase();
}
