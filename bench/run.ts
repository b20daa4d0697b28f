// npm run bench [-- --quick] [-- --store pglite|postgres]
// Every figure is printed next to a baseline measured in this same run; the machine is shared and
// noisy, so ratios are what the targets are written in. Nothing here fails on a missed target: the table
// says "NO" and bench/README.md says what limits it.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { bareFastifyRequestsPerSecond, rawInsertRowsPerSecond, rawPostsPerSecond } from './lib/baselines.ts';
import { startLethe } from './lib/lethe.ts';
import { ROOT, startChild } from './lib/processes.ts';
import { type Figure, writeReport } from './lib/report.ts';
import { subjectStoreFigures } from './scenarios/subject-store.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, store: { type: 'string' } },
  allowPositionals: true,
});
const quick = values.quick ?? false;
const postgresUrl =
  process.env.LETHE_BENCH_DATABASE_URL ??
  process.env.DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const store = values.store ?? (process.env.LETHE_BENCH_STORE || 'postgres');
if (store !== 'postgres' && store !== 'pglite') throw new Error('--store must be postgres or pglite');
const adminUrl = store === 'postgres' ? postgresUrl : undefined;
const seconds = quick ? 3 : 10;

const log = (message: string) => process.stdout.write(`${message}\n`);
log(`Lethe benchmarks (${quick ? 'quick' : 'full'}) on ${store}`);

log('baseline: bare Fastify hello-world');
const helloRps = await bareFastifyRequestsPerSecond(seconds);
log('baseline: raw INSERT rows/s');
const rawInsert = await rawInsertRowsPerSecond(adminUrl, seconds);
const receiver = await startChild(path.join(ROOT, 'bench/lib/receiver-server.ts'), [], {}, '/');
log('baseline: keep-alive POST/s to the local receiver');
const rawPosts = await rawPostsPerSecond(receiver.url, seconds);

const figures: Figure[] = [];
const lethe = await startLethe(adminUrl);
try {
  figures.push(...(await subjectStoreFigures({ lethe, store, quick, seconds, helloRps, rawInsert, log })));
} finally {
  await lethe.dispose();
  await receiver.stop();
}

log('');
log(await writeReport(store, quick, figures));
log(
  `\nbaselines: bare Fastify ${Math.round(helloRps)} req/s, raw INSERT ${Math.round(rawInsert)} rows/s, raw POST ${Math.round(rawPosts)} req/s`,
);
log('written: bench/results.json');
