// The event-loop delay of a Lethe started with bench/lib/loop-delay-probe.ts, one window at a time.
import { readFile } from 'node:fs/promises';

export interface LoopDelay {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

interface Snapshot extends LoopDelay {
  sequence: number;
}

async function snapshot(pid: number, file: string): Promise<Snapshot> {
  const before = await readFile(file, 'utf8')
    .then((text) => (JSON.parse(text) as Snapshot).sequence)
    .catch(() => 0);
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const current = await readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as Snapshot)
      .catch(() => undefined);
    if (current && current.sequence > before) return current;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the event-loop delay probe did not answer');
}

/** Runs `during` and answers its result with the event-loop delay of process `pid` while it ran. */
export async function loopDelayDuring<T>(
  pid: number,
  file: string,
  during: () => Promise<T>,
): Promise<{ result: T; delay: LoopDelay }> {
  await snapshot(pid, file);
  const result = await during();
  const { p50Ms, p99Ms, maxMs } = await snapshot(pid, file);
  return { result, delay: { p50Ms, p99Ms, maxMs } };
}
