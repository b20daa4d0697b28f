// The embedded default against the machine's PostgreSQL, in one run: get-by-id on a Lethe on each, one
// after the other with the same load; and the memory of `npm start`'s whole tree (npm, the service and every
// postgres process of its embedded server) after start and light use, as proportional set size (PSS: pages
// shared between the processes, such as postgres's shared buffers, counted once in all).
import { readWarmUpSeconds } from '../lib/baselines.ts';
import { load } from '../lib/load.ts';
import { type LetheUnderTest, startLethe } from '../lib/lethe.ts';
import { startWithNpm, type TreeMemory, treeMemory } from '../lib/npm-start.ts';
import { type Figure, figure } from '../lib/report.ts';
import { userBatch } from './subject-store.ts';

interface Context {
  postgresUrl: string;
  seconds: number;
  log(message: string): void;
}

const LIGHT_USE_CALLS = 200;
/** Issue 29: `npm start`'s whole tree after start and light use. */
const TREE_PSS_TARGET_MIB = 200;

async function prepare(
  lethe: Pick<LetheUnderTest, 'url' | 'management' | 'issueBenchKey'>,
): Promise<{ headers: Record<string, string>; id: string }> {
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

/** `npm start` on a fresh data dir, a datastore, a key, one entity and 200 sequential reads of it. */
async function npmStartTreeMemory(log: (message: string) => void): Promise<TreeMemory> {
  const started = await startWithNpm();
  try {
    const target = await prepare(started);
    for (let call = 0; call < LIGHT_USE_CALLS; call += 1) {
      const response = await fetch(`${started.url}/api/entity/get-by-id`, {
        method: 'POST',
        headers: target.headers,
        body: JSON.stringify([target.id]),
      });
      await response.arrayBuffer();
    }
    const memory = await treeMemory(started.pid);
    const parts = Object.entries(memory.byCommand)
      .map(([command, mib]) => `${command} ${mib.toFixed(1)}`)
      .join(', ');
    log(`  ${memory.processes} processes, ${memory.totalMib.toFixed(1)} MiB PSS (${parts})`);
    return memory;
  } finally {
    await started.stop();
  }
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
    warmUpSeconds: readWarmUpSeconds(seconds),
    connections: 10,
  });
  if (result.non2xx > 0)
    throw new Error(`get-by-id: ${result.non2xx} of ${result.total} answers were not 2xx`);
  return result.requestsPerSecond;
}

export async function engineFigures(context: Context): Promise<Figure[]> {
  const { log, seconds } = context;
  log('engines: npm start on a fresh data dir, start and light use');
  const tree = await npmStartTreeMemory(log);
  log(`engines: get-by-id on the embedded server, ${seconds} s`);
  const embedded = await startLethe(undefined);
  let embeddedRate: number;
  try {
    embeddedRate = await getByIdRate(embedded, await prepare(embedded), seconds);
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
      name: 'npm start process tree PSS after start and light use',
      value: tree.totalMib,
      unit: 'MiB',
      baseline: null,
      target: `<= ${TREE_PSS_TARGET_MIB} MiB`,
      met: (value) => value <= TREE_PSS_TARGET_MIB,
    }),
    ...Object.entries(tree.byCommand).map(([command, mib]) =>
      figure({
        name: `  of which ${command} PSS`,
        value: mib,
        unit: 'MiB',
        baseline: null,
        target: 'reported',
        met: () => true,
      }),
    ),
  ];
}
