// A short-lived cache of what the gate's one statement decided (gate.ts): that a key id's secret digest,
// presented from one address for one datastore, was valid, the address not blocked and the datastore
// there. A call that finds a fresh entry and presents the same secret is admitted without the statement;
// its rate-limit count goes to the per-process counter (src/rate-limits/local-counter.ts).
//
// How a change reaches it, fastest first:
// - in this process, a revocation or datastore deletion drops the entries before its call answers
//   (DatastoreAdminService.onKeysChanged), and a failed authentication from an address drops that
//   address's entries before it is answered;
// - in every other process (serve, worker, the CLI), the change's transaction notifies the channel
//   API_KEY_CHANGES_CHANNEL at its commit and the listener here drops the entries (milliseconds);
// - whatever happens to the notification (the listening connection lost, a pooler in the way), an entry
//   lives at most ADMISSION_TTL_MS: a revoked key is refused everywhere within a second.
// Only successes are cached: a wrong secret, an unknown key or a missing datastore always reaches the
// statement (and the address's failure count).
import { type ListenerLog, listenToChannel } from '../db/listen.ts';
import type { ApiKeyPrincipal } from './keys.ts';
import { API_KEY_CHANGES_CHANNEL } from './repository.ts';

export const ADMISSION_TTL_MS = 1000;
/** Past this many entries the cache starts over: a bound on memory, whatever the callers send. */
const MAX_ENTRIES = 10_000;

interface Admission {
  principal: ApiKeyPrincipal;
  secretDigest: Uint8Array;
  address: string;
  expiresAt: number;
}

export class AdmissionCache {
  readonly #entries = new Map<string, Admission>();

  static #key(keyId: string, address: string, datastore: string): string {
    return `${keyId}\n${address}\n${datastore}`;
  }

  /** The fresh admission of this key id from this address for this datastore, if any. */
  find(keyId: string, address: string, datastore: string): Admission | undefined {
    const key = AdmissionCache.#key(keyId, address, datastore);
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  remember(address: string, datastore: string, principal: ApiKeyPrincipal, secretDigest: Uint8Array): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(AdmissionCache.#key(principal.id, address, datastore), {
      principal,
      secretDigest,
      address,
      expiresAt: Date.now() + ADMISSION_TTL_MS,
    });
  }

  /** Drops every entry of key `id`, or every entry for '*'. */
  forgetKey(id: string): void {
    if (id === '*') {
      this.#entries.clear();
      return;
    }
    for (const [key, entry] of this.#entries) if (entry.principal.id === id) this.#entries.delete(key);
  }

  forgetAddress(address: string): void {
    for (const [key, entry] of this.#entries) if (entry.address === address) this.#entries.delete(key);
  }
}

/**
 * Listens on API_KEY_CHANGES_CHANNEL on a connection of its own (db/listen.ts) and drops the announced keys
 * from `cache`; whatever was announced while no connection listened is unknown, so every (re)connection
 * starts from an empty cache (the TTL covers the gap). Answers the function that stops it.
 */
export function listenForKeyChanges(
  connectionString: string,
  cache: AdmissionCache,
  log: ListenerLog,
): () => Promise<void> {
  return listenToChannel(connectionString, API_KEY_CHANGES_CHANNEL, log, {
    onListening: () => cache.forgetKey('*'),
    onNotification: (payload) => cache.forgetKey(payload ?? '*'),
  });
}
