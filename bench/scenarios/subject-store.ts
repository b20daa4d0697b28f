// Area B figures: get-by-id against bare Fastify, entity/create against raw INSERT, get-by-identity and
// forget as the datastore grows, file streaming, and the API's memory under each load.
import { fileTransfer, peakRss } from '../lib/files.ts';
import { load, sequentialLatency } from '../lib/load.ts';
import { benchUser, seedUsers } from '../lib/seed.ts';
import type { LetheUnderTest } from '../lib/lethe.ts';
import { type Figure, figure } from '../lib/report.ts';

interface Context {
  lethe: LetheUnderTest;
  store: string;
  quick: boolean;
  seconds: number;
  helloRps: number;
  rawInsert: number;
  log(message: string): void;
}

const ATTRIBUTES_PER_ENTITY = 5;
const ENTITIES_PER_CALL = 100;

/** Users numbered from `offset`; the load figures use numbers far above the seeded population's. */
export function userBatch(offset: number, count: number) {
  return Array.from({ length: count }, (_, index) => benchUser(LOAD_USERS_FROM + offset + index));
}

const LOAD_USERS_FROM = 500_000_000;

export async function subjectStoreFigures(context: Context): Promise<Figure[]> {
  const { lethe, log, seconds } = context;
  const figures: Figure[] = [];
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const key = await lethe.issueBenchKey();
  const headers = { 'api-key': key, datastore: 'bench', 'content-type': 'application/json' };
  const api = async (urlPath: string, body: unknown) => {
    const response = await fetch(`${lethe.url}${urlPath}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${urlPath} answered ${response.status}: ${text}`);
    return JSON.parse(text) as unknown;
  };

  log('get-by-id of one entity');
  const [created] = (await api('/api/entity/create', userBatch(0, 1))) as { id: string }[];
  let getById = { requestsPerSecond: 0, p99Ms: 0, non2xx: 0, total: 0 };
  const getByIdPeak = await peakRss(
    lethe,
    load({
      url: `${lethe.url}/api/entity/get-by-id`,
      method: 'POST',
      headers,
      body: JSON.stringify([created?.id]),
      seconds,
      connections: 10,
    }).then((result) => (getById = result)),
  );
  if (getById.non2xx > 0) log(`  warning: ${getById.non2xx} of ${getById.total} answers were not 2xx`);
  const getByIdTarget = 0.5;
  figures.push(
    figure({
      name: 'get-by-id req/s',
      value: getById.requestsPerSecond,
      unit: 'req/s',
      baseline: context.helloRps,
      target: `>= ${getByIdTarget} x bare Fastify`,
      met: (_value, ratio) => (ratio ?? 0) >= getByIdTarget,
    }),
    figure({
      name: 'API RSS under get-by-id load',
      value: getByIdPeak,
      unit: 'MB',
      baseline: null,
      target: '<= 200 MB',
      met: (value) => value <= 200,
    }),
  );

  log('entity/create, 100 entities x 5 attributes a call');
  let create = { requestsPerSecond: 0, non2xx: 0, total: 0 };
  const createPeak = await peakRss(
    lethe,
    load({
      url: `${lethe.url}/api/entity/create`,
      method: 'POST',
      headers,
      body: JSON.stringify(userBatch(1, ENTITIES_PER_CALL)),
      seconds,
      connections: 4,
    }).then((result) => (create = result)),
  );
  if (create.non2xx > 0) log(`  warning: ${create.non2xx} of ${create.total} answers were not 2xx`);
  const rowsPerCall = ENTITIES_PER_CALL * (1 + ATTRIBUTES_PER_ENTITY);
  figures.push(
    figure({
      name: 'entity/create rows/s (entity + attribute rows)',
      value: create.requestsPerSecond * rowsPerCall,
      unit: 'rows/s',
      baseline: context.rawInsert,
      target: '>= 0.3 x raw INSERT',
      met: (_value, ratio) => (ratio ?? 0) >= 0.3,
    }),
    figure({
      name: 'API RSS under entity/create load',
      value: createPeak,
      unit: 'MB',
      baseline: null,
      target: '<= 200 MB',
      met: (value) => value <= 200,
    }),
  );

  const smallSize = context.quick ? 1_000 : 10_000;
  const largeSize = context.quick ? 10_000 : 1_000_000;
  let population = 0;
  const populate = async (target: number) => {
    await seedUsers({
      databaseUrl: lethe.databaseUrl,
      encryptionKey: lethe.encryptionKey,
      datastore: 'bench',
      from: population,
      to: target,
    });
    population = target;
  };
  const identityLatency = async () => {
    const size = population;
    return sequentialLatency(context.quick ? 200 : 500, async () => {
      const pick = Math.floor(Math.random() * size);
      const [answer] = (await api('/api/entity/get-by-identity', [`USER${pick}@bench.example`])) as {
        entities: unknown[];
      }[];
      if (answer?.entities.length !== 1) throw new Error(`user${pick} was not found exactly once`);
    });
  };
  const forgetWithDescendants = async () => {
    const [root] = (await api('/api/entity/create', [
      { name: 'user', attributes: [{ name: 'email', value: `root${population}@bench.example` }] },
    ])) as { id: string }[];
    for (let batch = 0; batch < 10; batch += 1) {
      await api(
        '/api/entity/create',
        Array.from({ length: 100 }, (_, index) => ({
          name: 'order',
          references: [{ parentId: root?.id, parentName: 'user' }],
          attributes: [{ name: 'number', value: `ord-${batch}-${index}` }],
        })),
      );
    }
    const started = performance.now();
    const response = await fetch(`${lethe.url}/api/user/forget`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ entityId: root?.id }),
    });
    const answer = (await response.json()) as { erased?: { entities: number } };
    const elapsed = performance.now() - started;
    if (response.status !== 200 || answer.erased?.entities !== 1001) {
      throw new Error(`forget answered ${response.status}: ${JSON.stringify(answer)}`);
    }
    return elapsed;
  };

  log(`populating ${smallSize} entities (${lethe.databaseUrl ? 'SQL seeder' : 'through the API'})`);
  await populate(smallSize);
  const smallIdentity = await identityLatency();
  const smallForget = await forgetWithDescendants();
  const seedStarted = performance.now();
  log(`populating ${largeSize} entities`);
  await populate(largeSize);
  log(`  seeded in ${Math.round((performance.now() - seedStarted) / 1000)} s`);
  let largeIdentity = { p50Ms: 0, p99Ms: 0 };
  const identityPeak = await peakRss(
    lethe,
    identityLatency().then((result) => (largeIdentity = result)),
  );
  const largeForget = await forgetWithDescendants();
  log(
    `  get-by-identity p50 ${largeIdentity.p50Ms.toFixed(2)} ms at ${largeSize}, ${smallIdentity.p50Ms.toFixed(2)} ms at ${smallSize}`,
  );
  figures.push(
    figure({
      name: `get-by-identity p99 at ${largeSize} entities`,
      value: largeIdentity.p99Ms,
      unit: 'ms',
      baseline: smallIdentity.p99Ms,
      target: `<= 10 ms and <= 2 x its p99 at ${smallSize}`,
      met: (value, ratio) => value <= 10 && (ratio ?? Infinity) <= 2,
    }),
    figure({
      name: 'API RSS under get-by-identity calls',
      value: identityPeak,
      unit: 'MB',
      baseline: null,
      target: '<= 200 MB',
      met: (value) => value <= 200,
    }),
    figure({
      name: `forget of 1,000 descendants at ${largeSize} entities`,
      value: largeForget,
      unit: 'ms',
      baseline: smallForget,
      target: `<= 300 ms and <= 1.5 x at ${smallSize}`,
      met: (value, ratio) => value <= 300 && (ratio ?? Infinity) <= 1.5,
    }),
  );

  log('file upload and download of 20 MiB');
  const [owner] = (await api('/api/entity/create', userBatch(900_000, 1))) as { id: string }[];
  const files = await fileTransfer(lethe, key, owner?.id ?? '', 20 * 2 ** 20);
  figures.push(
    figure({
      name: 'file upload 20 MiB',
      value: files.uploadMbPerSecond,
      unit: 'MB/s',
      baseline: null,
      target: 'reported',
      met: () => true,
    }),
    figure({
      name: 'file download 20 MiB',
      value: files.downloadMbPerSecond,
      unit: 'MB/s',
      baseline: null,
      target: 'reported',
      met: () => true,
    }),
    figure({
      name: 'API RSS growth during 20 MiB upload/download',
      value: files.rssGrowthMb,
      unit: 'MB',
      baseline: null,
      target: '< 10 MB',
      met: (value) => value < 10,
    }),
  );
  return figures;
}
