// Hostile input must not make the service work for long. The service runs in the test's process, so the
// CPU time this process spends while the hostile work is in flight bounds what the input cost: unlike the
// wall-clock time of a /health probe, it does not grow when other processes load the machine.
export async function cpuMillisecondsWhile(work: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/**
 * What the hostile calls of one test may cost in CPU. A quadratic check spent about 4.5 s on one 64 KiB
 * value and every test sends at least one; the linear one spends tens of milliseconds on the whole call.
 */
export const HOSTILE_CPU_BOUND_MS = 3000;
