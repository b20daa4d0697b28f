// Loaded into the Lethe under measurement with `--import` (bench only; Lethe itself has no such hook):
// samples the event loop's delay with perf_hooks.monitorEventLoopDelay and, on SIGUSR2, writes the
// percentiles since the previous signal to BENCH_LOOP_DELAY_FILE and starts over. The bench signals
// before and after each load (bench/lib/loop-delay.ts), so each load gets its own figures.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.BENCH_LOOP_DELAY_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let sequence = 0;
  process.on('SIGUSR2', () => {
    sequence += 1;
    const ms = (nanoseconds: number) => nanoseconds / 1e6;
    writeFileSync(
      file,
      JSON.stringify({
        sequence,
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        maxMs: ms(histogram.max),
      }),
    );
    histogram.reset();
  });
}
