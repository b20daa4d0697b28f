// A bounded HTTP load with autocannon, from the orchestrating process.
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  errors: number;
  non2xx: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds: number;
  /**
   * An unmeasured load of this many seconds first, so that the figure is of a warm process (JIT-compiled
   * handlers, prepared statements, a full pool), as the side-by-side rounds were.
   */
  warmUpSeconds?: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  if (options.warmUpSeconds) await load({ ...options, seconds: options.warmUpSeconds, warmUpSeconds: 0 });
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 10,
    duration: options.seconds,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Latency percentiles of sequential calls, for figures where one caller's wait is what matters. */
export async function sequentialLatency(
  calls: number,
  call: () => Promise<void>,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const samples: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const at = (fraction: number) =>
    samples[Math.min(samples.length - 1, Math.floor(fraction * samples.length))] ?? 0;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}
