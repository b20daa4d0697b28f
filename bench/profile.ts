// node bench/profile.ts --load get-by-id|create|identity|privacy-requests [--store embedded|postgres]
// [--seconds 10] [--shape quick|full] [--out file.cpuprofile] (keeps the profile for a flame graph in
// Chrome DevTools)
// Runs one load against a Lethe started with --cpu-prof and prints where its CPU time went: the top
// functions by self time and the same time grouped by module (a package, or a file of src/). The
// summaries in bench/README.md come from here. It measures nothing the table reports. It also prints the
// CPU time each request cost the API process and the database backends serving it, the transactions
// each committed and the statements each sent (by their first words): counts that hold however busy the
// machine is, unlike req/s. `privacy-requests` runs the bench's privacy-request scenario in its quick
// shape (or with `--shape full` the full mode's: 10,000 entities, at most 300 waiting) on the API
// process's own worker, for `--seconds`; a request there is one privacy request, submission to complete.
// `--events` subscribes to every event first (as the bench's "with an event subscription" run does), so
// that the same counts read what the events cost a request. `--events-elsewhere` subscribes too but runs
// Lethe with `--work requests,messages`, as the bench's emitter figure does: the counts are then what
// writing the deliveries costs a request, and nothing delivers them.
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { EVENT_TYPES } from '../src/events/catalog.ts';
import { type LetheUnderTest, startLethe } from './lib/lethe.ts';
import { load } from './lib/load.ts';
import { ROOT, startChild } from './lib/processes.ts';
import { FULL_SHAPE, QUICK_SHAPE, setUp, sustainedRun, WEBHOOK_ENV } from './scenarios/privacy-requests.ts';
import { userBatch } from './scenarios/subject-store.ts';

const { values } = parseArgs({
  options: {
    load: { type: 'string', default: 'get-by-id' },
    store: { type: 'string', default: 'embedded' },
    seconds: { type: 'string', default: '10' },
    shape: { type: 'string', default: 'quick' },
    top: { type: 'string', default: '25' },
    out: { type: 'string' },
    events: { type: 'boolean', default: false },
    'events-elsewhere': { type: 'boolean', default: false },
  },
});
const adminUrl =
  values.store === 'embedded'
    ? undefined
    : (process.env.LETHE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const seconds = Number(values.seconds);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds a process has spent in its own code and in the kernel (system calls), from /proc; 0 once gone. */
async function cpuTimes(pid: number): Promise<{ user: number; system: number }> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    user: Number(fields[11] ?? 0) / CLOCK_TICKS_PER_SECOND,
    system: Number(fields[12] ?? 0) / CLOCK_TICKS_PER_SECOND,
  };
}

/** CPU seconds (user + system) each thread of a process has used, by thread id, with the thread's name. */
async function threadCpu(pid: number): Promise<Map<string, { name: string; seconds: number }>> {
  const threads = new Map<string, { name: string; seconds: number }>();
  const ids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const id of ids) {
    const stat = await readFile(`/proc/${pid}/task/${id}/stat`, 'utf8').catch(() => '');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(id, {
      name,
      seconds: (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / CLOCK_TICKS_PER_SECOND,
    });
  }
  return threads;
}

/** CPU seconds (user + system) a process has used. */
async function cpuSeconds(pid: number): Promise<number> {
  const { user, system } = await cpuTimes(pid);
  return user + system;
}

interface DatabaseCounters {
  backendCpu: number;
  commits: number;
}

/** The CPU of the backends connected to the bench database and its committed transactions so far. */
async function databaseCounters(databaseUrl: string): Promise<DatabaseCounters> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const backends = await client.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    await client.query('SELECT pg_stat_clear_snapshot()');
    const commits = await client.query<{ commits: string }>(
      'SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()',
    );
    const cpu = await Promise.all(backends.rows.map(({ pid }) => cpuSeconds(pid)));
    return {
      backendCpu: cpu.reduce((sum, value) => sum + value, 0),
      commits: Number(commits.rows[0]?.commits),
    };
  } finally {
    await client.end();
  }
}

function moduleOf(url: string): string {
  if (!url) return '(native/VM)';
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packaged) return packaged[1] as string;
  if (url.startsWith('node:')) return url;
  return path.relative(ROOT, url.replace(/^file:\/\//, ''));
}

function summarise(profile: Profile, top: number): string {
  const total = profile.samples.length;
  const byFunction = new Map<string, number>();
  const byModule = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (hits === 0) continue;
    const frame = node.callFrame;
    const where = moduleOf(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    byModule.set(where, (byModule.get(where) ?? 0) + hits);
  }
  const table = (entries: Map<string, number>) =>
    [...entries]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join('\n');
  const wallMs = (profile.endTime - profile.startTime) / 1000;
  return [
    `${total} samples over ${(wallMs / 1000).toFixed(1)} s`,
    '',
    'self time by module:',
    table(byModule),
    '',
    'self time by function:',
    table(byFunction),
  ].join('\n');
}

/** Statements sent by Lethe's `pg` clients so far, by their first words (bench/lib/statement-probe.ts). */
async function statementCounts(file: string): Promise<Record<string, number>> {
  // The probe rewrites the file every 100 ms: wait for a write made after this call.
  await new Promise((resolve) => setTimeout(resolve, 250));
  return JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, number>;
}

interface LoadResult {
  /** Requests the load completed: the costs are divided by it. */
  total: number;
  summary: string;
}

/** Runs `run` and prints what each of its requests cost Lethe and the database, and the statements sent. */
async function measured(lethe: LetheUnderTest, statementFile: string, run: () => Promise<LoadResult>) {
  const apiCpuBefore = await cpuTimes(lethe.pid);
  const threadsBefore = await threadCpu(lethe.pid);
  const databaseBefore = await databaseCounters(lethe.databaseUrl);
  const statementsBefore = await statementCounts(statementFile);
  const result = await run();
  const apiCpuAfter = await cpuTimes(lethe.pid);
  const threadsAfter = await threadCpu(lethe.pid);
  const apiSystem = apiCpuAfter.system - apiCpuBefore.system;
  const apiCpu = apiCpuAfter.user - apiCpuBefore.user + apiSystem;
  const databaseAfter = await databaseCounters(lethe.databaseUrl);
  const statementsAfter = await statementCounts(statementFile);
  const perRequest = (value: number) => value / result.total;
  const commits = databaseAfter.commits - databaseBefore.commits;
  const sent = Object.entries(statementsAfter)
    .map(([shape, count]) => [shape, count - (statementsBefore[shape] ?? 0)] as const)
    .filter(([, count]) => count > 0)
    .sort((a, b) => b[1] - a[1]);
  const statements = sent.reduce((sum, [, count]) => sum + count, 0);
  process.stdout.write(
    [
      result.summary,
      `per request: API process CPU ${(perRequest(apiCpu) * 1000).toFixed(3)} ms (${(perRequest(apiSystem) * 1000).toFixed(3)} of it in the kernel), PostgreSQL backends CPU ${(perRequest(databaseAfter.backendCpu - databaseBefore.backendCpu) * 1000).toFixed(3)} ms, ${perRequest(commits).toFixed(2)} commits, ${perRequest(statements).toFixed(2)} statements (${result.total} requests)`,
      `API CPU per request by thread: ${[...threadsAfter]
        .map(([id, { name, seconds }]) => ({
          name,
          ms: perRequest(seconds - (threadsBefore.get(id)?.seconds ?? 0)) * 1000,
        }))
        .filter(({ ms }) => ms >= 0.05)
        .sort((a, b) => b.ms - a.ms)
        .map(({ name, ms }) => `${name} ${ms.toFixed(3)} ms`)
        .join(', ')}`,
      'statements per request, by their first words:',
      ...sent.slice(0, 30).map(([shape, count]) => `${perRequest(count).toFixed(2).padStart(7)}  ${shape}`),
      '',
      '',
    ].join('\n'),
  );
}

/** The read and write loads on the subject store: one request, repeated by `connections` clients. */
async function subjectStoreLoad(lethe: LetheUnderTest): Promise<() => Promise<LoadResult>> {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const key = await lethe.issueBenchKey();
  const headers = { 'api-key': key, datastore: 'bench', 'content-type': 'application/json' };
  const post = async (urlPath: string, body: unknown) => {
    const response = await fetch(`${lethe.url}${urlPath}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return (await response.json()) as { id: string }[];
  };
  const [entity] = await post('/api/entity/create', userBatch(0, 1));
  for (let offset = 1; offset < 2000; offset += 100) await post('/api/entity/create', userBatch(offset, 100));
  const loads: Record<string, { url: string; body: string; connections: number }> = {
    'get-by-id': { url: '/api/entity/get-by-id', body: JSON.stringify([entity?.id]), connections: 10 },
    create: { url: '/api/entity/create', body: JSON.stringify(userBatch(10_000, 100)), connections: 4 },
    identity: {
      url: '/api/entity/get-by-identity',
      body: JSON.stringify(['USER1234@bench.example']),
      connections: 10,
    },
  };
  const chosen = loads[values.load];
  if (!chosen)
    throw new Error(`--load must be one of ${[...Object.keys(loads), 'privacy-requests'].join(', ')}`);
  return async () => {
    const result = await load({
      url: `${lethe.url}${chosen.url}`,
      method: 'POST',
      headers,
      body: chosen.body,
      seconds,
      connections: chosen.connections,
    });
    return {
      total: result.total,
      summary: `${values.load} on ${values.store}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}`,
    };
  };
}

/**
 * The bench's privacy-request scenario in its quick or full shape (the in-process worker of the API
 * process), for `seconds`; the costs are divided by the requests submitted, each waited for until complete.
 */
async function privacyRequestLoad(
  lethe: LetheUnderTest,
  receiverUrl: string,
): Promise<() => Promise<LoadResult>> {
  if (values.shape !== 'quick' && values.shape !== 'full') throw new Error('--shape must be quick or full');
  const shape = values.shape === 'full' ? FULL_SHAPE : QUICK_SHAPE;
  await setUp(lethe, receiverUrl, shape.population);
  if (values.events || values['events-elsewhere']) {
    await lethe.management('PUT', '/v1/event-subscription/bench', {
      url: `${receiverUrl}/events`,
      events: EVENT_TYPES,
      format: 'cloudevents',
    });
  }
  return async () => {
    const run = await sustainedRun(lethe, 'profile', { ...shape, seconds, drainSeconds: 60 });
    if (values.events) await eventsDelivered(lethe.databaseUrl);
    return {
      total: run.submitted,
      summary: `privacy-requests on ${values.store}: ${run.perSecond.toFixed(1)} completed/s, creation -> complete p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, event-loop delay p99 ${run.loopDelayP99Ms.toFixed(1)} ms`,
    };
  };
}

/** Waits (at most a minute) until every event of the run is delivered, so that its cost is counted. */
async function eventsDelivered(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const { rows } = await client.query<{ pending: number }>(
        "SELECT count(*)::int AS pending FROM event_deliveries WHERE state = 'pending'",
      );
      if (rows[0]?.pending === 0) return;
      if (Date.now() > deadline) throw new Error(`${rows[0]?.pending} event deliveries still pending`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.end();
  }
}

const privacyRequests = values.load === 'privacy-requests';
const profileDir = await mkdtemp(path.join(tmpdir(), 'lethe-profile-'));
const statementFile = path.join(profileDir, 'statements.json');
const statementProbe = pathToFileURL(path.join(ROOT, 'bench/lib/statement-probe.ts')).href;
const receiver = privacyRequests
  ? await startChild(path.join(ROOT, 'bench/lib/receiver-server.ts'), [], {}, '/')
  : undefined;
try {
  const lethe = await startLethe(
    adminUrl,
    { ...(privacyRequests ? WEBHOOK_ENV : {}), BENCH_STATEMENT_FILE: statementFile },
    ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--import=${statementProbe}`],
    values['events-elsewhere'] ? ['--work', 'requests,messages'] : [],
  );
  try {
    const run = receiver ? await privacyRequestLoad(lethe, receiver.url) : await subjectStoreLoad(lethe);
    await measured(lethe, statementFile, run);
  } finally {
    await lethe.dispose();
  }
} finally {
  await receiver?.stop();
}
const [file] = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error('the server wrote no profile');
if (values.out) await copyFile(path.join(profileDir, file), values.out);
const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8')) as Profile;
process.stdout.write(`${summarise(profile, Number(values.top))}\n`);
await rm(profileDir, { recursive: true, force: true });
