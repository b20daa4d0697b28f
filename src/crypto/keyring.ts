// Every key Lethe uses is derived (HKDF-SHA-256) from the one master key, each under its own label, so
// that a key for one purpose can never decrypt or forge data of another.
import { hkdfSync } from 'node:crypto';

export type KeyPurpose =
  | 'connection-secrets'
  | 'resume-token'
  | 'identity-cache'
  | `datastore-values:${string}`
  | `datastore-blind-index:${string}`
  | 'masking-hash'
  | 'access-package'
  | 'callback-signing'
  | 'target-oauth-token';

export class Keyring {
  readonly #master: Buffer;
  readonly #cache = new Map<string, Buffer>();

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
}
