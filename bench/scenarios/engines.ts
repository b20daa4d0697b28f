// The embedded default against the machine's PostgreSQL, in one run: get-by-id on a Lethe on each, one
// after the other with the same load, and the memory of the whole embedded installation (the Node process
// and every postgres process of its server) after start and light use, as proportional set size (PSS:
// pages shared between the processes, such as postgres's shared buffers, counted once in all).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { load } from '../lib/load.ts';
import { type LetheUnderTest, startLethe } from '../lib/lethe.ts';
import { type Figure, figure } from '../lib/report.ts';
import { userBatch } from './subject-store.ts';

interface Context {
  postgresUrl: string;
  seconds: number;
  log(message: string): void;
}

const LIGHT_USE_CALLS = 200;

async function pssMb(pid: number): Promise<number> {
  const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
  return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0) / 1024;
}

/** The postmaster of the data dir's server and every process it started. */
async function postgresTree(dataDir: string): Promise<number[]> {
  const postmaster = Number(
    (await readFile(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0],
  );
  const children: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (parent === postmaster) children.push(Number(entry));
  }
  return [postmaster, ...children];
}

async function prepare(lethe: LetheUnderTest): Promise<{ headers: Record<string, string>; id: string }> {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const key = await lethe.issueBenchKey();
  const headers = { 'api-key': key, datastore: 'bench', 'content-type': 'application/json' };
  const response = await fetch(`${lethe.url}/api/entity/create`, {
    method: 'POST',
    headers,
    body: JSON.stringify(userBatch(800_000, 1)),
  });
  const [created] = (await response.json()) as { id: string }[];
  if (!created) throw new Error(`entity/create answered ${response.status}`);
  return { headers, id: created.id };
}

async function getByIdRate(
  lethe: LetheUnderTest,
  target: { headers: Record<string, string>; id: string },
  seconds: number,
) {
  const result = await load({
    url: `${lethe.url}/api/entity/get-by-id`,
    method: 'POST',
    headers: target.headers,
    body: JSON.stringify([target.id]),
    seconds,
    connections: 10,
  });
  if (result.non2xx > 0)
    throw new Error(`get-by-id: ${result.non2xx} of ${result.total} answers were not 2xx`);
  return result.requestsPerSecond;
}

export async function engineFigures(context: Context): Promise<Figure[]> {
  const { log, seconds } = context;
  log('engines: Lethe on the embedded server, start and light use');
  const embedded = await startLethe(undefined);
  let embeddedRate: number;
  let treePss: number;
  try {
    const target = await prepare(embedded);
    for (let call = 0; call < LIGHT_USE_CALLS; call += 1) {
      const response = await fetch(`${embedded.url}/api/entity/get-by-id`, {
        method: 'POST',
        headers: target.headers,
        body: JSON.stringify([target.id]),
      });
      await response.arrayBuffer();
    }
    const pids = [embedded.pid, ...(await postgresTree(embedded.dataDir))];
    treePss = (await Promise.all(pids.map(pssMb))).reduce((sum, value) => sum + value, 0);
    log(`  ${pids.length} processes, ${treePss.toFixed(1)} MiB PSS`);
    log(`engines: get-by-id on the embedded server, ${seconds} s`);
    embeddedRate = await getByIdRate(embedded, target, seconds);
  } finally {
    await embedded.dispose();
  }

  log(`engines: get-by-id on the machine's PostgreSQL, ${seconds} s`);
  const external = await startLethe(context.postgresUrl);
  let externalRate: number;
  try {
    externalRate = await getByIdRate(external, await prepare(external), seconds);
  } finally {
    await external.dispose();
  }

  return [
    figure({
      name: 'get-by-id req/s, embedded server (baseline: the machine PostgreSQL)',
      value: embeddedRate,
      unit: 'req/s',
      baseline: externalRate,
      target: '>= 0.8 x PostgreSQL',
      met: (_value, ratio) => (ratio ?? 0) >= 0.8,
    }),
    figure({
      name: 'process tree PSS after start and light use (Node + postgres)',
      value: treePss,
      unit: 'MiB',
      baseline: null,
      target: '< 250 MiB',
      met: (value) => value < 250,
    }),
  ];
}
