// node bench/profile.ts --load get-by-id|create|identity [--store pglite|postgres] [--seconds 10]
// [--out file.cpuprofile] (keeps the profile for a flame graph in Chrome DevTools)
// Runs one load against a Lethe started with --cpu-prof and prints where its CPU time went: the top
// functions by self time and the same time grouped by module (a package, or a file of src/). The
// summaries in bench/README.md come from here. It measures nothing the table reports.
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLethe } from './lib/lethe.ts';
import { load } from './lib/load.ts';
import { ROOT } from './lib/processes.ts';
import { userBatch } from './scenarios/subject-store.ts';

const { values } = parseArgs({
  options: {
    load: { type: 'string', default: 'get-by-id' },
    store: { type: 'string', default: 'postgres' },
    seconds: { type: 'string', default: '10' },
    top: { type: 'string', default: '25' },
    out: { type: 'string' },
  },
});
const adminUrl =
  values.store === 'pglite'
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

const profileDir = await mkdtemp(path.join(tmpdir(), 'lethe-profile-'));
const lethe = await startLethe(adminUrl, {}, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
try {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const { key } = (await lethe.management('POST', '/v1/api-key', {
    name: 'bench',
    datastores: ['bench'],
    rate_limit_per_minute: 1_000_000,
  })) as { key: string };
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
  if (!chosen) throw new Error(`--load must be one of ${Object.keys(loads).join(', ')}`);
  const result = await load({
    url: `${lethe.url}${chosen.url}`,
    method: 'POST',
    headers,
    body: chosen.body,
    seconds,
    connections: chosen.connections,
  });
  process.stdout.write(
    `${values.load} on ${values.store}: ${Math.round(result.requestsPerSecond)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}\n\n`,
  );
} finally {
  await lethe.dispose();
}
const [file] = (await readdir(profileDir)).filter((name) => name.endsWith('.cpuprofile'));
if (!file) throw new Error('the server wrote no profile');
if (values.out) await copyFile(path.join(profileDir, file), values.out);
const profile = JSON.parse(await readFile(path.join(profileDir, file), 'utf8')) as Profile;
process.stdout.write(`${summarise(profile, Number(values.top))}\n`);
await rm(profileDir, { recursive: true, force: true });
