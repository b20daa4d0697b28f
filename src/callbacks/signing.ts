// Signed callbacks (beyond Fides): every callback carries `Lethe-Signature: t=<unix>,v1=<hex>` where the hex
// is HMAC-SHA256 under the connection's signing secret of "<t>.<raw body>", so a receiver can tell that the
// body came from this Lethe, unchanged and recently. During a rotation's grace period the previous secret
// signs too (a second v1 entry). This module opens signing secrets only to sign; it never logs, returns or
// puts one in an error.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { connectionRepository, type SealedSigningSecrets } from '../connections/repository.ts';
import { generateSigningSecret, openSigningSecret, sealSigningSecret } from '../connections/secrets.ts';

export const SIGNATURE_HEADER = 'Lethe-Signature';

/** How far a receiver should let `t` stray from its own clock, both ways, unless it decides otherwise. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

function signatureHex(secret: string, rawBody: string | Uint8Array, unixSeconds: number): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
}

/** The header value for one secret: `t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<rawBody>")>`. */
export function signatureHeader(secret: string, rawBody: string | Uint8Array, unixSeconds: number): string {
  return signatureHeaderForAll([secret], rawBody, unixSeconds);
}

/** One `t` and a `v1` entry per secret, in the order given (the current secret first). */
export function signatureHeaderForAll(
  secrets: readonly string[],
  rawBody: string | Uint8Array,
  unixSeconds: number,
): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new RangeError('unixSeconds must be a whole, non-negative number of seconds');
  }
  return [
    `t=${unixSeconds}`,
    ...secrets.map((secret) => `v1=${signatureHex(secret, rawBody, unixSeconds)}`),
  ].join(',');
}

export interface VerifyOptions {
  /** Largest accepted difference between `t` and `now`, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock in unix seconds (default: now). */
  now?: number;
}

/**
 * Whether `header` holds a v1 signature of `rawBody` by `secret` whose `t` lies within the tolerance of
 * `now`. Compares in constant time; unknown entries (future versions) are ignored. `rawBody` must be the
 * bytes as received, before any JSON parsing.
 */
export function verifySignature(
  header: string | null | undefined,
  rawBody: string | Uint8Array,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  if (typeof header !== 'string' || header.length > 4096) return false;
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const entry of header.split(',')) {
    const separator = entry.indexOf('=');
    if (separator < 0) continue;
    const name = entry.slice(0, separator).trim();
    const value = entry.slice(separator + 1).trim();
    if (name === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return false;
      timestamp = Number(value);
    } else if (name === 'v1' && /^[0-9a-f]{64}$/.test(value)) {
      candidates.push(value);
    }
  }
  if (timestamp === undefined || candidates.length === 0) return false;
  if (Math.abs(now - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHex(secret, rawBody, timestamp), 'hex');
  let matched = false;
  for (const candidate of candidates) {
    if (timingSafeEqual(expected, Buffer.from(candidate, 'hex'))) matched = true;
  }
  return matched;
}

/** What the callback client asks for each callback: the `Lethe-Signature` value for a connection and body. */
export class CallbackSigning {
  readonly #db: Database;
  readonly #keyring: Keyring;

  constructor(services: { db: Database; keyring: Keyring }) {
    this.#db = services.db;
    this.#keyring = services.keyring;
  }

  /**
   * The header value signing `rawBody` for the connection now: the current secret, plus the previous one
   * while a rotation's grace period lasts. A connection made before signing existed gets its secret here,
   * on its first callback (nobody has seen it: rotating shows one). Undefined only when the connection is
   * gone.
   */
  async headerFor(connectionKey: string, rawBody: string | Uint8Array): Promise<string | undefined> {
    return this.headerWith(
      connectionKey,
      await connectionRepository.signingSecrets(this.#db, connectionKey),
      rawBody,
    );
  }

  /** `headerFor` with the connection's sealed secrets already read (in the same read as its URL). */
  async headerWith(
    connectionKey: string,
    read: SealedSigningSecrets | undefined,
    rawBody: string | Uint8Array,
  ): Promise<string | undefined> {
    let sealed = read;
    if (sealed && sealed.current === null) {
      const secret = generateSigningSecret();
      await connectionRepository.addMissingSigningSecret(
        this.#db,
        connectionKey,
        sealSigningSecret(this.#keyring, connectionKey, secret),
      );
      sealed = await connectionRepository.signingSecrets(this.#db, connectionKey);
    }
    if (!sealed?.current) return undefined;
    const secrets = [this.#open(connectionKey, sealed.current)];
    if (sealed.previous) secrets.push(this.#open(connectionKey, sealed.previous));
    return signatureHeaderForAll(secrets, rawBody, Math.floor(Date.now() / 1000));
  }

  #open(connectionKey: string, sealed: Uint8Array): string {
    try {
      return openSigningSecret(this.#keyring, connectionKey, sealed);
    } catch {
      throw new Error(
        `the signing secret of connection ${connectionKey} cannot be opened (was LETHE_ENCRYPTION_KEY changed?); rotate it`,
      );
    }
  }
}
