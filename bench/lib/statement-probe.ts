// Loaded into the Lethe under measurement with `--import` by bench/profile.ts (bench only; Lethe itself
// has no such hook): counts the statements every `pg` client of the process sends (Lethe's pool and
// pg-boss's), by the statement's first words, and writes the running totals to BENCH_STATEMENT_FILE
// every 100 ms. pg_stat_statements would need a server restart; this works on any PostgreSQL.
import { renameSync, writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import pg from 'pg';

const file = process.env.BENCH_STATEMENT_FILE;
// Only the process's main thread: a worker thread (the webhook client's) would overwrite the file with its own
// counts.
if (file && isMainThread) {
  const counts: Record<string, number> = {};
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
    const [config] = args;
    const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
    if (typeof text === 'string') {
      const shape = text.replace(/\s+/g, ' ').trim().slice(0, 90);
      counts[shape] = (counts[shape] ?? 0) + 1;
    }
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
  // Written aside and renamed, so that a reader never sees a half-written file.
  setInterval(() => {
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  }, 100).unref();
}
