// Area B figures: get-by-id against bare Fastify, entity/create against raw INSERT, get-by-identity and
// forget as the datastore grows, file streaming, and the API's memory under each load.
import { readWarmUpSeconds } from '../lib/baselines.ts';
import { fileTransfer, peakRss } from '../lib/files.ts';
import { load, type LoadResult, sequentialLatency } from '../lib/load.ts';
import type { LoopDelay } from '../lib/loop-delay.ts';
import { benchUser, seedUsers } from '../lib/seed.ts';
import type { LetheUnderTest } from '../lib/lethe.ts';
import { type Figure, figure } from '../lib/report.ts';

interface Context {
  lethe: LetheUnderTest;
  store: string;
  quick: boolean;
  seconds: number;
  helloRps: number;
  /** Fastify + pg, one primary-key SELECT a request, pool of 10. */
  oneSelectRps: number;
  /** The same SELECT plus a log INSERT in one statement and one commit: the limit of an audited read. */
  auditedSelectRps: number;
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

/** Issue 29: each read at this ratio of the audited-read baseline or better. */
const READ_TARGET = 0.7;

/** A read load's req/s against the audited baseline (the target) and the one-SELECT one (reported). */
function readFigures(name: string, requestsPerSecond: number, context: Context): Figure[] {
  return [
    figure({
      name: `${name} req/s`,
      value: requestsPerSecond,
      unit: 'req/s',
      baseline: context.auditedSelectRps,
      target: `>= ${READ_TARGET} x audited-SELECT baseline`,
      met: (_value, ratio) => (ratio ?? 0) >= READ_TARGET,
    }),
    figure({
      name: `${name} req/s against one SELECT`,
      value: requestsPerSecond,
      unit: 'req/s',
      baseline: context.oneSelectRps,
      target: 'reported',
      met: () => true,
    }),
  ];
}

/** The issue's bound on the API's event-loop delay p99 under any load. */
const LOOP_DELAY_P99_TARGET_MS = 20;

function loopDelayFigure(load: string, delay: LoopDelay): Figure {
  return figure({
    name: `API event-loop delay p99 under ${load}`,
    value: delay.p99Ms,
    unit: 'ms',
    baseline: null,
    target: `<= ${LOOP_DELAY_P99_TARGET_MS} ms`,
    met: (value) => value <= LOOP_DELAY_P99_TARGET_MS,
  });
}

/** A load of `connections` keep-alive POSTs of `body` with its peak RSS and event-loop delay. */
async function measuredLoad(
  lethe: LetheUnderTest,
  options: {
    path: string;
    headers: Record<string, string>;
    body: unknown;
    seconds: number;
    connections: number;
    warmUpSeconds?: number;
  },
): Promise<{ result: LoadResult; peakMb: number; delay: LoopDelay }> {
  let result: LoadResult | undefined;
  const request = {
    url: `${lethe.url}${options.path}`,
    method: 'POST' as const,
    headers: options.headers,
    body: JSON.stringify(options.body),
    connections: options.connections,
  };
  if (options.warmUpSeconds) await load({ ...request, seconds: options.warmUpSeconds });
  const { result: peakMb, delay } = await lethe.loopDelay(() =>
    peakRss(
      lethe,
      load({ ...request, seconds: options.seconds }).then((answer) => (result = answer)),
    ),
  );
  return { result: result as LoadResult, peakMb, delay };
}

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

  figures.push(
    figure({
      name: 'baseline: Fastify + pg, one primary-key SELECT a request',
      value: context.oneSelectRps,
      unit: 'req/s',
      baseline: context.helloRps,
      target: 'reported (ratio to bare Fastify)',
      met: () => true,
    }),
    figure({
      name: 'baseline: Fastify + pg, the SELECT plus a log INSERT in one statement',
      value: context.auditedSelectRps,
      unit: 'req/s',
      baseline: context.oneSelectRps,
      target: 'reported (ratio to one SELECT)',
      met: () => true,
    }),
  );

  log('get-by-id of one entity');
  const [created] = (await api('/api/entity/create', userBatch(0, 1))) as { id: string }[];
  const getById = await measuredLoad(lethe, {
    path: '/api/entity/get-by-id',
    headers,
    body: [created?.id],
    seconds,
    warmUpSeconds: readWarmUpSeconds(seconds),
    connections: 10,
  });
  if (getById.result.non2xx > 0) {
    log(`  warning: ${getById.result.non2xx} of ${getById.result.total} answers were not 2xx`);
  }
  figures.push(
    ...readFigures('get-by-id', getById.result.requestsPerSecond, context),
    figure({
      name: 'get-by-id req/s against bare Fastify',
      value: getById.result.requestsPerSecond,
      unit: 'req/s',
      baseline: context.helloRps,
      target: 'reported',
      met: () => true,
    }),
    figure({
      name: 'get-by-id p99 (10 connections)',
      value: getById.result.p99Ms,
      unit: 'ms',
      baseline: null,
      target: 'reported',
      met: () => true,
    }),
    loopDelayFigure('get-by-id', getById.delay),
    figure({
      name: 'API RSS under get-by-id load',
      value: getById.peakMb,
      unit: 'MB',
      baseline: null,
      target: '<= 200 MB',
      met: (value) => value <= 200,
    }),
  );

  log('entity/create, 100 entities x 5 attributes a call');
  const create = await measuredLoad(lethe, {
    path: '/api/entity/create',
    headers,
    body: userBatch(1, ENTITIES_PER_CALL),
    seconds,
    connections: 4,
  });
  if (create.result.non2xx > 0) {
    log(`  warning: ${create.result.non2xx} of ${create.result.total} answers were not 2xx`);
  }
  const rowsPerCall = ENTITIES_PER_CALL * (1 + ATTRIBUTES_PER_ENTITY);
  figures.push(
    figure({
      name: 'entity/create rows/s (entity + attribute rows)',
      value: create.result.requestsPerSecond * rowsPerCall,
      unit: 'rows/s',
      baseline: context.rawInsert,
      target: '>= 0.3 x raw INSERT',
      met: (_value, ratio) => (ratio ?? 0) >= 0.3,
    }),
    loopDelayFigure('entity/create', create.delay),
    figure({
      name: 'API RSS under entity/create load',
      value: create.peakMb,
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
  log(`get-by-identity, 10 connections, at ${smallSize} entities`);
  const identityLoad = await measuredLoad(lethe, {
    path: '/api/entity/get-by-identity',
    headers,
    body: ['USER7@bench.example'],
    seconds,
    warmUpSeconds: readWarmUpSeconds(seconds),
    connections: 10,
  });
  figures.push(
    ...readFigures(
      `get-by-identity at ${smallSize} entities`,
      identityLoad.result.requestsPerSecond,
      context,
    ),
    loopDelayFigure('get-by-identity', identityLoad.delay),
  );
  const smallIdentity = await identityLatency();
  const smallForget = await forgetWithDescendants();
  const seedStarted = performance.now();
  log(`populating ${largeSize} entities`);
  await populate(largeSize);
  log(`  seeded in ${Math.round((performance.now() - seedStarted) / 1000)} s`);
  let largeIdentity = { p50Ms: 0, p99Ms: 0 };
  const { result: identityPeak, delay: sequentialDelay } = await lethe.loopDelay(() =>
    peakRss(
      lethe,
      identityLatency().then((result) => (largeIdentity = result)),
    ),
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
    loopDelayFigure(`sequential get-by-identity at ${largeSize}`, sequentialDelay),
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
