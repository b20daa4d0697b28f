// Turns for slow password hashes (src/crypto/password.ts): at most MAX_CONCURRENT_HASHES run at once and
// at most MAX_WAITING_HASHES wait; past that HashingBusy is thrown (the caller answers 429), so a burst of
// logins can neither take every core nor grow memory without bound. Waiting hashes are served round-robin
// by their caller's key (the client address): an address with thirty attempts queued does not make a
// sign-in from another address wait behind all thirty. Knows nothing of passwords.
export const MAX_CONCURRENT_HASHES = 2;
export const MAX_WAITING_HASHES = 32;

/** Too many hashes are running and waiting; the caller should answer 429 and let the client retry. */
export class HashingBusy extends Error {
  override name = 'HashingBusy';
  constructor() {
    super('Too many sign-ins are being checked right now; retry in a few seconds.');
  }
}

let running = 0;
let completed = 0;
let waitingCount = 0;
/** Waiting turns per key, in the order the keys are to be served (a served key goes to the back). */
const waiting = new Map<string, (() => void)[]>();

/** How many hashes run and wait now (never more than the two maxima), and how many were done so far. */
export function hashTurns(): { running: number; waiting: number; completed: number } {
  return { running, waiting: waitingCount, completed };
}

function nextWaiting(): (() => void) | undefined {
  const first = waiting.entries().next();
  if (first.done) return undefined;
  const [key, turns] = first.value;
  const next = turns.shift();
  waiting.delete(key);
  if (turns.length > 0) waiting.set(key, turns);
  waitingCount -= 1;
  return next;
}

/** Runs `work` when a turn is free (served fairly across keys); HashingBusy when the queue is full. */
export async function inHashTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT_HASHES) {
    if (waitingCount >= MAX_WAITING_HASHES) throw new HashingBusy();
    // The finishing hash hands its slot over (running stays counted), so a newcomer cannot jump the queue.
    await new Promise<void>((resolve) => {
      const turns = waiting.get(key);
      if (turns) turns.push(resolve);
      else waiting.set(key, [resolve]);
      waitingCount += 1;
    });
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    completed += 1;
    const next = nextWaiting();
    if (next) next();
    else running -= 1;
  }
}
