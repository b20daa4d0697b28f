// Every key Lethe uses is derived (HKDF-SHA-256) from the one master key, each under its own label, so
// that a key for one purpose can never decrypt or forge data of another.
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

export type KeyPurpose =
  | 'connection-secrets'
  | 'resume-token'
  | 'identity-cache'
  | `datastore-values:${string}`
  | `datastore-blind-index:${string}`
  | 'masking-hash'
  | 'access-package'
  | 'callback-signing'
  | 'target-oauth-token'
  | 'root-token-digest'
  | 'identity-verification'
  | 'mail-recipient'
  | 'outbox'
  | 'task-data'
  | 'request-identity-index'
  | 'consent-index'
  | 'authorized-agent'
  | 'corrections'
  | 'request-notes'
  | 'oidc-sign-in'
  | 'event-signing';

export class Keyring {
  readonly #master: Buffer;
  readonly #cache = new Map<string, Buffer>();
  readonly #objects = new Map<string, KeyObject>();

  constructor(master: Buffer) {
    if (master.length !== 32) throw new Error('the master key must be 32 bytes');
    this.#master = master;
  }

  key(purpose: KeyPurpose): Buffer {
    let derived = this.#cache.get(purpose);
    if (!derived) {
      derived = Buffer.from(hkdfSync('sha256', this.#master, Buffer.alloc(0), `lethe/${purpose}`, 32));
      this.#cache.set(purpose, derived);
    }
    return derived;
  }

  /**
   * The same key as a KeyObject, made once. Ciphers and HMACs handed a Buffer build a KeyObject on every
   * call; on the subject store's hot paths (a seal and an HMAC per attribute) that was a third of the CPU.
   */
  secretKey(purpose: KeyPurpose): KeyObject {
    let object = this.#objects.get(purpose);
    if (!object) {
      object = createSecretKey(this.key(purpose));
      this.#objects.set(purpose, object);
    }
    return object;
  }
}
