// The webhook client on a thread of its own: the same calls and outcomes as CallbackClient, made by one on a
// worker thread, so that the HTTP work of many deliveries (undici's requests and answers, the SSRF guard's
// lookups) runs beside the process's event loop instead of on it. The events worker uses it: a
// subscription's three or so signed POSTs a request would otherwise share the loop that runs the requests
// themselves (bench/README.md, issue 39).
//
// The thread starts at the first call and stops once it has had nothing to do for `idleMs`, so a process
// without deliveries never pays for it. If it stops with calls in flight (it crashed, or the client was
// closed), those calls end as retryable network errors: the caller's delivery is tried again later, under the
// same webhook-id.
import { Worker } from 'node:worker_threads';
import type { CallbackOutcome, CallbackPolicy, CallbackPoster } from './client.ts';

export interface ThreadCall {
  id: number;
  target: string;
  headers: Record<string, string>;
  body: string;
}

export interface ThreadAnswer {
  id: number;
  outcome: CallbackOutcome;
}

interface InFlight {
  target: string;
  started: number;
  resolve(outcome: CallbackOutcome): void;
}

/** Bounds on the thread's heap: it holds only calls in flight and their answers (each at most 1 MiB). */
const THREAD_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 };
const DEFAULT_IDLE_MS = 30_000;

/** The module the thread runs, beside this one and in the same form (src/*.ts under test, dist/*.js built). */
const THREAD_MODULE = new URL(import.meta.url.replace(/threaded-client(\.[jt]s)$/, 'client-thread$1'));
// A renamed file would start this module as the thread, which answers nothing: every delivery would wait.
if (THREAD_MODULE.href === import.meta.url)
  throw new Error(`no client-thread module beside ${import.meta.url}`);

export class ThreadedCallbackClient implements CallbackPoster {
  readonly #policy: CallbackPolicy;
  readonly #idleMs: number;
  readonly #inFlight = new Map<number, InFlight>();
  #thread: Worker | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #lastId = 0;

  constructor(policy: CallbackPolicy, options: { idleMs?: number } = {}) {
    // Only these three fields go to the thread: the caller passes its whole Config, which may hold the
    // encryption key (LETHE_ENCRYPTION_KEY), and a thread is given a copy of whatever it gets.
    this.#policy = {
      allowInsecureWebhooks: policy.allowInsecureWebhooks,
      webhookAllowedHosts: [...policy.webhookAllowedHosts],
      webhookTimeoutMs: policy.webhookTimeoutMs,
    };
    this.#idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Whether the thread is running now (it starts at a call and stops when idle). */
  get running(): boolean {
    return this.#thread !== undefined;
  }

  post(target: string, headers: Record<string, string>, body: string): Promise<CallbackOutcome> {
    clearTimeout(this.#idleTimer);
    const thread = this.#startedThread();
    const id = ++this.#lastId;
    return new Promise((resolve) => {
      this.#inFlight.set(id, { target, started: performance.now(), resolve });
      thread.postMessage({ id, target, headers, body } satisfies ThreadCall);
    });
  }

  /** Stops the thread; calls still in flight end as retryable failures. A later call starts a new thread. */
  async close(): Promise<void> {
    clearTimeout(this.#idleTimer);
    const thread = this.#thread;
    if (!thread) return;
    this.#forget(thread);
    await thread.terminate();
  }

  #startedThread(): Worker {
    if (this.#thread) return this.#thread;
    const thread = new Worker(THREAD_MODULE, { workerData: this.#policy, resourceLimits: THREAD_LIMITS });
    thread.on('message', (answer: ThreadAnswer) => this.#settle(answer.id, answer.outcome));
    // An error is followed by the exit, where the calls in flight are settled.
    thread.on('error', () => undefined);
    thread.on('exit', () => {
      if (this.#thread === thread) this.#forget(thread);
    });
    this.#thread = thread;
    return thread;
  }

  #settle(id: number, outcome: CallbackOutcome) {
    const call = this.#inFlight.get(id);
    if (!call) return;
    this.#inFlight.delete(id);
    call.resolve(outcome);
    if (this.#inFlight.size === 0) {
      clearTimeout(this.#idleTimer);
      this.#idleTimer = setTimeout(() => void this.close(), this.#idleMs);
      this.#idleTimer.unref();
    }
  }

  /** Drops the thread and ends each call still in flight as a network error worth another try. */
  #forget(thread: Worker) {
    if (this.#thread === thread) this.#thread = undefined;
    const interrupted = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const call of interrupted) call.resolve(interruptedOutcome(call));
  }
}

function interruptedOutcome(call: InFlight): CallbackOutcome {
  let targetHost = '';
  try {
    targetHost = new URL(call.target).host;
  } catch {
    // The thread would have refused it; an interrupted call needs no host to be retried.
  }
  return {
    ok: false,
    kind: 'network_error',
    status: undefined,
    durationMs: Math.round(performance.now() - call.started),
    targetHost,
    error: 'the delivery thread stopped before the call ended',
    body: undefined,
    retryable: true,
  };
}
