// Delivering one callback to its connection's target: the authorization it presents (the connection's
// OAuth bearer token, else its static authorization secret, opened by connections/secrets.ts), the
// `Lethe-Signature` of the body, the connection's extra headers (never over the ones Lethe sets), then
// the call through the callback client. It decides nothing about the
// request the callback belongs to, and never logs or puts in an error a header value or a secret.
import type { CallbackTarget } from '../connections/repository.ts';
import { withCustomHeaders } from '../connections/callback-headers.ts';
import { openAuthorization, openCallbackHeaders } from '../connections/secrets.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { CallbackClient, CallbackOutcome } from './client.ts';
import type { CallbackSigning } from './signing.ts';
import type { TargetOAuth } from './target-oauth.ts';

/** A callback that cannot be prepared (its stored secret or signing secret cannot be opened). */
export class CallbackPreparationError extends Error {}

export class CallbackDelivery {
  readonly #keyring: Keyring;
  readonly #client: CallbackClient;
  readonly #oauth: TargetOAuth;
  readonly #signing: CallbackSigning;

  constructor(
    keyring: Keyring,
    outbound: { client: CallbackClient; oauth: TargetOAuth; signing: CallbackSigning },
  ) {
    this.#keyring = keyring;
    this.#client = outbound.client;
    this.#oauth = outbound.oauth;
    this.#signing = outbound.signing;
  }

  /**
   * One delivery: the connection's authorization (its OAuth bearer token, else the static secret) and the
   * `Lethe-Signature` of this body, then the call. A 401 while presenting an OAuth token drops the cached
   * token and tries once more with a fresh one. Reports every call made through `sent`.
   */
  async deliver(
    target: CallbackTarget,
    url: string,
    headers: Record<string, string>,
    body: string,
    sent: (outcome: CallbackOutcome) => void,
  ): Promise<CallbackOutcome> {
    let signed = { ...headers };
    const signature = await this.#signing
      .headerWith(target.key, target.signing, body)
      .catch((error: unknown) => {
        throw new CallbackPreparationError(
          error instanceof Error ? error.message : 'cannot sign the callback',
        );
      });
    if (signature) signed['lethe-signature'] = signature;
    const bearer = await this.#oauth.bearerWith(target.key, target.oauth);
    if (bearer !== null) signed.authorization = `Bearer ${bearer}`;
    else if (target.secrets_authorization_sealed) {
      try {
        signed.authorization = openAuthorization(
          this.#keyring,
          target.key,
          target.secrets_authorization_sealed,
        );
      } catch {
        throw new CallbackPreparationError(
          `the authorization secret of connection ${target.key} cannot be opened (was LETHE_ENCRYPTION_KEY changed?); set it again`,
        );
      }
    }
    if (target.secrets_headers_sealed) signed = withCustomHeaders(this.#customHeaders(target), signed);
    const outcome = await this.#client.post(url, signed, body);
    sent(outcome);
    if (outcome.status !== 401 || bearer === null) return outcome;
    await this.#oauth.forget(target.key);
    const fresh = await this.#oauth.bearerFor(target.key);
    if (fresh === null) return outcome;
    const again = await this.#client.post(url, { ...signed, authorization: `Bearer ${fresh}` }, body);
    sent(again);
    return again;
  }

  #customHeaders(target: CallbackTarget): Record<string, string> {
    try {
      return openCallbackHeaders(this.#keyring, target.key, target.secrets_headers_sealed as Uint8Array);
    } catch {
      throw new CallbackPreparationError(
        `the extra headers of connection ${target.key} cannot be opened (was LETHE_ENCRYPTION_KEY changed?); set them again`,
      );
    }
  }

  /** Closes the kept-alive connections to targets and token endpoints. */
  async close(): Promise<void> {
    await this.#client.close();
    await this.#oauth.close();
  }
}
