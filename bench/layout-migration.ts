// The online move of migration 029 (src/datastore/entity-layout.ts) on a store of an earlier release:
//   node bench/layout-migration.ts [--entities 1000000] [--store embedded|postgres] [--kill-at 0.4]
// Starts Lethe (`lethe serve`: the API and its worker, which moves the entities) on a fresh store, writes
// `--entities` users of five attributes in the earlier layout (bench/lib/earlier-seed.ts) and starts it
// again, so that its worker finds them to move. Throughout the move and the verification, four readers
// (get-by-id of a seeded user, whose email must be the one seeded) and one writer (attribute/update of a
// seeded user's last_name) call it without pause. Once `--kill-at` of the entities are moved, the process
// is killed (SIGKILL) and started again: the move must go on where it stopped. At the end every value
// written during the move is read back. Prints the times, the calls served, the calls that failed while
// the process was up (must be 0) and those refused while it restarted, and what verification found.
import { parseArgs } from 'node:util';
import path from 'node:path';
import pg from 'pg';
import { seedEarlierUsers } from './lib/earlier-seed.ts';
import { startFlags, startLethe } from './lib/lethe.ts';
import { type Child, ROOT, startChild } from './lib/processes.ts';

const { values } = parseArgs({
  options: {
    entities: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'embedded' },
    'kill-at': { type: 'string', default: '0.4' },
  },
});
const entities = Number(values.entities);
const killAt = Number(values['kill-at']);
const adminUrl =
  values.store === 'embedded'
    ? undefined
    : (process.env.LETHE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const log = (message: string) =>
  process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);

const lethe = await startLethe(adminUrl);
const state = new pg.Client({ connectionString: lethe.databaseUrl });
let serving: Child = lethe;
let restarted: Child | undefined;
try {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const key = await lethe.issueBenchKey();
  await state.connect();
  const seedStarted = performance.now();
  let lastShown = 0;
  const sample = await seedEarlierUsers({
    databaseUrl: lethe.databaseUrl,
    encryptionKey: lethe.encryptionKey,
    datastore: 'bench',
    count: entities,
    progress: (seeded) => {
      if (seeded - lastShown >= 100_000) {
        lastShown = seeded;
        log(`seeded ${seeded} users in the earlier layout`);
      }
    },
  });
  log(`seeded ${entities} users in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);

  const restart = async () => {
    restarted = await startChild(path.join(ROOT, 'bin/lethe.mjs'), ['serve'], lethe.env, '/health', [
      ...(await startFlags()),
    ]);
    serving = restarted;
  };
  await lethe.stop();
  await restart();
  const moveStarted = performance.now();
  log('started again: the worker moves the entities');

  let up = true;
  let stopLoad = false;
  const counts = { reads: 0, writes: 0, failedWhileUp: 0, refusedWhileRestarting: 0 };
  const failures: string[] = [];
  const latencies: number[] = [];
  const written = new Map<number, string>();
  const call = async (apiPath: string, body: unknown) => {
    const response = await fetch(`${serving.url}${apiPath}`, {
      method: 'POST',
      headers: { 'api-key': key, datastore: 'bench', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as { attributes?: { name: string; value: string }[] }[],
    };
  };
  const attempt = async (work: () => Promise<string | undefined>) => {
    const wasUp = up;
    try {
      const failure = await work();
      if (failure && wasUp && up) {
        counts.failedWhileUp += 1;
        if (failures.length < 10) failures.push(failure);
      }
      return failure === undefined;
    } catch (error) {
      if (wasUp && up) {
        counts.failedWhileUp += 1;
        if (failures.length < 10) failures.push((error as Error).message);
      } else counts.refusedWhileRestarting += 1;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return false;
    }
  };
  const reader = async () => {
    while (!stopLoad) {
      const index = Math.floor(Math.random() * sample.length);
      const started = performance.now();
      const ok = await attempt(async () => {
        const answer = await call('/api/entity/get-by-id', [sample[index]]);
        const email = answer.body[0]?.attributes?.find((attribute) => attribute.name === 'email')?.value;
        return answer.status === 200 && email === `user${index * 100}@bench.example`
          ? undefined
          : `get-by-id ${answer.status} ${email}`;
      });
      if (ok) {
        counts.reads += 1;
        latencies.push(performance.now() - started);
      }
    }
  };
  const writer = async () => {
    for (let round = 0; !stopLoad; round++) {
      const index = Math.floor(Math.random() * sample.length);
      const value = `during-${round}`;
      const ok = await attempt(async () => {
        const answer = await call('/api/attribute/update', [
          { id: sample[index], attributes: [{ name: 'last_name', value }] },
        ]);
        return answer.status === 200 ? undefined : `attribute/update ${answer.status}`;
      });
      if (ok) {
        counts.writes += 1;
        written.set(index, value);
      }
    }
  };
  const load = Promise.all([reader(), reader(), reader(), reader(), writer()]);

  let killed = false;
  let phase = 'move';
  let row: Record<string, string | Date | null> = {};
  while (phase !== 'done') {
    await new Promise((resolve) => setTimeout(resolve, 500));
    ({
      rows: [row = {}],
    } = await state.query(
      `SELECT phase, moved, verified, mismatched, mismatched_ids, started_at, moved_at, finished_at,
              (SELECT count(*) FROM entities WHERE attributes IS NULL) AS left
         FROM entity_layout_migration`,
    ));
    phase = String(row.phase);
    if (!killed && Number(row.moved) >= entities * killAt) {
      killed = true;
      up = false;
      process.kill(serving.pid, 'SIGKILL');
      log(`killed (SIGKILL) at ${row.moved} moved, ${row.left} left; starting again`);
      await restart();
      up = true;
      log('answering again');
    }
  }
  const movedIn = ((row.moved_at as Date).getTime() - (row.started_at as Date).getTime()) / 1000;
  const verifiedIn = ((row.finished_at as Date).getTime() - (row.moved_at as Date).getTime()) / 1000;
  stopLoad = true;
  await load;
  let lost = 0;
  for (const [index, value] of written) {
    const answer = await call('/api/entity/get-by-id', [sample[index]]);
    if (answer.body[0]?.attributes?.find((attribute) => attribute.name === 'last_name')?.value !== value)
      lost += 1;
  }
  latencies.sort((left, right) => left - right);
  const percentile = (share: number) => latencies[Math.floor(latencies.length * share)]?.toFixed(1);
  const result = {
    entities,
    store: values.store,
    movedSeconds: movedIn,
    verifiedSeconds: verifiedIn,
    wallSeconds: Math.round((performance.now() - moveStarted) / 1000),
    moved: Number(row.moved),
    verified: Number(row.verified),
    mismatched: Number(row.mismatched),
    killedAndResumed: killed,
    reads: counts.reads,
    writes: counts.writes,
    readLatencyMs: { p50: percentile(0.5), p99: percentile(0.99) },
    errorsWhileUp: counts.failedWhileUp,
    refusedWhileRestarting: counts.refusedWhileRestarting,
    writesLost: lost,
    failures,
  };
  log(JSON.stringify(result, null, 2));
  if (counts.failedWhileUp > 0 || lost > 0 || Number(row.mismatched) > 0) process.exitCode = 1;
} finally {
  await state.end().catch(() => {});
  await restarted?.stop();
  await lethe.dispose();
}
