// Per-process counting of the API keys' calls with batched flushes to rate_limit_counters, for the
// calls the gate admits from its cache (src/api-keys/admission-cache.ts). The gate's statement counts
// the first call of a key's window in this process (and any call this counter declines) and tells the
// counter where the window stands; after that the calls are counted here and their sum is added to the
// shared row at most FLUSH_INTERVAL_MS later, all keys in one statement (committed without waiting for
// the WAL flush, see counters.ts).
//
// A call is decided on what this process knows: the shared count as of its last statement or flush,
// plus its own unflushed calls. Those are at most max(1, floor(limit / 20)) per key (past that the call
// goes to the statement), and other processes' calls since the last flush are not seen, so with P API
// processes a key may be admitted at most about 2 x (P - 1) x max(1, floor(limit / 20)) times past its
// limit in a window (about 10% per extra process; one process alone is exact). A refusal is never
// wrong: the known count only ever under-counts.
import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../db/database.ts';
import { countHitsStatement, WITHOUT_FLUSH_WAIT, windowEndingAfter } from './counters.ts';

export const FLUSH_INTERVAL_MS = 100;
/** The share of a key's limit one process may count without the shared row. */
const LOCAL_SHARE = 20;

interface KeyWindow {
  /** The shared count, as of the last statement or flush. */
  hits: number;
  /** Counted here, not yet sent. */
  pending: number;
  /** Sent, not yet confirmed. */
  sending: number;
  endsAt: number;
}

const FLUSH_SQL = countHitsStatement(
  `SELECT u.key, u.delta, ${windowEndingAfter('$3')} FROM unnest($1::text[], $2::int[]) AS u(key, delta), ${WITHOUT_FLUSH_WAIT}`,
);

export class LocalKeyCounter {
  readonly #db: Queryable;
  readonly #windowMs: number;
  readonly #log: FastifyBaseLogger;
  readonly #windows = new Map<string, KeyWindow>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> | undefined;
  #closed = false;

  constructor(db: Queryable, windowMs: number, log: FastifyBaseLogger) {
    this.#db = db;
    this.#windowMs = windowMs;
    this.#log = log;
  }

  /**
   * Where the shared row of `key` stands after a statement counted a call: `hits` in a window of `ttlMs`
   * more. Answers the count the window has as this process knows it (the row's and this process's unsent
   * calls; a flush in flight may be counted twice until it returns: an over-count, never an under-count).
   */
  observe(key: string, hits: number, ttlMs: number): number {
    const endsAt = Date.now() + ttlMs;
    let window = this.#windows.get(key);
    if (window && Math.abs(window.endsAt - endsAt) < 1000) {
      // The same window (it ends within a second of the known end): keep the larger count.
      window.hits = Math.max(window.hits, hits);
    } else {
      // A new window: calls counted here meanwhile go to it.
      window = { hits, pending: window?.pending ?? 0, sending: window?.sending ?? 0, endsAt };
      this.#windows.set(key, window);
    }
    return window.hits + window.sending + window.pending;
  }

  /**
   * Counts one call of `key` here and answers the count it makes in the window with its milliseconds
   * left, or undefined when the call must be counted by the statement (no known window, the window over,
   * or this process's share of the limit unsent).
   */
  count(key: string, limit: number): { hits: number; ttlMs: number } | undefined {
    const window = this.#windows.get(key);
    const now = Date.now();
    if (!window || now >= window.endsAt) return undefined;
    if (window.pending + window.sending >= Math.max(1, Math.floor(limit / LOCAL_SHARE))) return undefined;
    window.pending += 1;
    this.#schedule();
    return { hits: window.hits + window.sending + window.pending, ttlMs: window.endsAt - now };
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, FLUSH_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Sends every unsent count in one statement; a failed one is kept for the next flush. */
  async flush(): Promise<void> {
    if (this.#flushing) await this.#flushing;
    const batch = [...this.#windows].filter(([, window]) => window.pending > 0);
    if (batch.length === 0) return;
    const deltas = batch.map(([, window]) => window.pending);
    for (const [, window] of batch) {
      window.sending += window.pending;
      window.pending = 0;
    }
    this.#flushing = (async () => {
      try {
        const { rows } = await this.#db.query<{ key: string; hits: number; ttl_ms: number }>(FLUSH_SQL, [
          batch.map(([key]) => key),
          deltas,
          this.#windowMs,
        ]);
        batch.forEach(([, window], index) => (window.sending -= deltas[index] as number));
        for (const row of rows) this.observe(row.key, row.hits, row.ttl_ms);
        for (const [key, window] of this.#windows) if (Date.now() >= window.endsAt) this.#windows.delete(key);
      } catch (error) {
        this.#log.warn({ err: error }, 'could not flush rate-limit counts; kept for the next flush');
        batch.forEach(([, window], index) => {
          window.sending -= deltas[index] as number;
          window.pending += deltas[index] as number;
        });
        this.#schedule();
      } finally {
        this.#flushing = undefined;
      }
    })();
    await this.#flushing;
  }

  /** Stops the timer and sends what is left, once (a failure then is not retried). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.flush();
  }
}
