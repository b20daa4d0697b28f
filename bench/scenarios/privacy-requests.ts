// Privacy-request figures, through the management API only: an auto-approved access policy with two
// one_way and one two_way pre-execution webhooks and one one_way post-execution webhook, all calling the
// local receiver, over a datastore of 10,000 entities. Requests are submitted as fast as they complete
// (a bounded backlog); completions are counted by the API, and each request's latency is its own
// `finished_processing_at - requested_at`. Then the same load with an event subscription to every event,
// then with a second worker process, and (full
// mode, PostgreSQL) the API's RSS before and after 100,000 requests paused on a halting webhook.
import path from 'node:path';
import { peakRss } from '../lib/files.ts';
import { type LetheUnderTest, startFlags, startLethe } from '../lib/lethe.ts';
import { ROOT, startBackgroundProcess } from '../lib/processes.ts';
import { type Figure, figure } from '../lib/report.ts';
import { seedUsers } from '../lib/seed.ts';
import { EVENT_TYPES } from '../../src/events/catalog.ts';

interface Context {
  adminUrl: string | undefined;
  store: string;
  quick: boolean;
  /** How long each sustained run lasts, when given (`--seconds`); else its shape's. */
  seconds?: number;
  receiverUrl: string;
  rawPosts: number;
  log(message: string): void;
}

interface RequestView {
  id: string;
  status: string;
  external_id: string | null;
  requested_at: string;
  finished_processing_at: string | null;
}

interface Page<Item> {
  items: Item[];
  total: number;
}

const SUBMIT_BATCH = 50;
/** Runs with an event subscription, each between two without (the figure is the median of their ratios). */
const EVENT_PAIRS = 3;
/** Lets Lethe call the local receiver over plain HTTP. */
export const WEBHOOK_ENV = {
  LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
  LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
};
/** The quick mode's shape: what bench/profile.ts --load privacy-requests runs too. */
export const QUICK_SHAPE: RunShape = { seconds: 5, backlog: 50, drainSeconds: 10, population: 1_000 };
/** The full mode's shape: what bench/profile.ts --load privacy-requests --shape full runs too. */
export const FULL_SHAPE: RunShape = { seconds: 30, backlog: 300, drainSeconds: 60, population: 10_000 };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function expectNoFailures(answer: unknown, what: string) {
  const failed = (answer as { failed?: unknown[] }).failed ?? [];
  if (failed.length > 0) throw new Error(`${what}: ${JSON.stringify(failed)}`);
}

export async function setUp(lethe: LetheUnderTest, receiverUrl: string, entities: number) {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  await seedUsers({
    databaseUrl: lethe.databaseUrl,
    encryptionKey: lethe.encryptionKey,
    datastore: 'bench',
    from: 0,
    to: entities,
  });
  await expectNoFailures(
    await lethe.management('PATCH', '/v1/connection', [
      { name: 'Bench receiver', key: 'bench_receiver', connection_type: 'https', access: 'read' },
      { name: 'Bench halting receiver', key: 'bench_halt', connection_type: 'https', access: 'read' },
    ]),
    'connections',
  );
  await lethe.management('PUT', '/v1/connection/bench_receiver', {
    url: `${receiverUrl}/hook`,
    authorization: 'Bearer bench-receiver',
  });
  await lethe.management('PUT', '/v1/connection/bench_halt', {
    url: `${receiverUrl}/halt`,
    authorization: 'Bearer bench-receiver',
  });
  await expectNoFailures(
    await lethe.management('PATCH', '/v1/dsr/policy', [
      { name: 'Bench access', key: 'bench_access', drp_action: 'access' },
      { name: 'Bench pause', key: 'bench_pause', drp_action: 'access' },
    ]),
    'policies',
  );
  for (const policy of ['bench_access', 'bench_pause']) {
    await expectNoFailures(
      await lethe.management('PATCH', `/v1/dsr/policy/${policy}/rule`, [
        { name: 'Access everything', key: 'access_all', action_type: 'access', targets: ['*'] },
      ]),
      'rules',
    );
  }
  const hook = (key: string, direction: 'one_way' | 'two_way', connection = 'bench_receiver') => ({
    connection_config_key: connection,
    direction,
    key,
    name: `Bench ${key}`,
  });
  await lethe.management('PUT', '/v1/policy/bench_access/webhook/pre_execution', [
    hook('notify_crm', 'one_way'),
    hook('notify_warehouse', 'one_way'),
    hook('enrich', 'two_way'),
  ]);
  await lethe.management('PUT', '/v1/policy/bench_access/webhook/post_execution', [
    hook('notify_done', 'one_way'),
  ]);
  await lethe.management('PUT', '/v1/policy/bench_pause/webhook/pre_execution', [
    hook('hold', 'two_way', 'bench_halt'),
  ]);
}

async function countWithStatus(lethe: LetheUnderTest, status: string): Promise<number> {
  const page = (await lethe.management(
    'GET',
    `/v1/privacy-request?status=${status}&size=1`,
  )) as Page<unknown>;
  return page.total;
}

/** Submits requests of `policy` in batches of 50 until `until()` says stop; answers the count. */
async function submitter(
  lethe: LetheUnderTest,
  policy: string,
  tag: string,
  population: number,
  keepGoing: (submitted: number) => Promise<boolean>,
) {
  let submitted = 0;
  while (await keepGoing(submitted)) {
    const batch = Array.from({ length: SUBMIT_BATCH }, (_, index) => ({
      policy_key: policy,
      external_id: `${tag}-${submitted + index}`,
      identity: { email: `user${Math.floor(Math.random() * population)}@bench.example` },
    }));
    await expectNoFailures(await lethe.management('POST', '/v1/privacy-request', batch), 'submit');
    submitted += batch.length;
  }
  return submitted;
}

/** Completed requests of this run (external ids starting with `tag-`), newest first, paged. */
async function completedOf(lethe: LetheUnderTest, tag: string): Promise<RequestView[]> {
  const found: RequestView[] = [];
  for (let page = 1; ; page += 1) {
    const answer = (await lethe.management(
      'GET',
      `/v1/privacy-request?status=complete&size=1000&page=${page}`,
    )) as Page<RequestView>;
    found.push(...answer.items.filter((item) => item.external_id?.startsWith(`${tag}-`)));
    if (answer.items.length < 1000) return found;
  }
}

export interface Sustained {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  submitted: number;
  rssPeakMb: number;
  /** The API process's event-loop delay (its in-process worker included) during the window. */
  loopDelayP99Ms: number;
}

export interface RunShape {
  seconds: number;
  /** Submitted but not yet complete requests the submitter keeps at most. */
  backlog: number;
  /** How long to wait after the run for the backlog to complete, so its latencies count too. */
  drainSeconds: number;
  population: number;
}

export async function sustainedRun(lethe: LetheUnderTest, tag: string, shape: RunShape): Promise<Sustained> {
  const { seconds, backlog, population } = shape;
  const before = await countWithStatus(lethe, 'complete');
  let completed = before;
  let submittedTotal = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let finishedAt = started;
  const run = (async () => {
    const tracker = (async () => {
      while (performance.now() < deadline) {
        completed = await countWithStatus(lethe, 'complete');
        await sleep(250);
      }
      completed = await countWithStatus(lethe, 'complete');
      finishedAt = performance.now();
    })();
    submittedTotal = await submitter(lethe, 'bench_access', tag, population, async (submitted) => {
      while (performance.now() < deadline && submitted - (completed - before) >= backlog) await sleep(50);
      return performance.now() < deadline;
    });
    await tracker;
  })();
  const { result: rssPeakMb, delay } = await lethe.loopDelay(() => peakRss(lethe, run));
  const perSecond = (completed - before) / ((finishedAt - started) / 1000);
  // Let the backlog drain (bounded) so the latencies include the requests submitted last.
  const drainUntil = performance.now() + shape.drainSeconds * 1000;
  while (
    performance.now() < drainUntil &&
    (await countWithStatus(lethe, 'complete')) - before < submittedTotal
  ) {
    await sleep(500);
  }
  const latencies = (await completedOf(lethe, tag))
    .flatMap((item) =>
      item.finished_processing_at
        ? [Date.parse(item.finished_processing_at) - Date.parse(item.requested_at)]
        : [],
    )
    .sort((a, b) => a - b);
  const at = (fraction: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(fraction * latencies.length))] ?? 0;
  return {
    perSecond,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    submitted: submittedTotal,
    rssPeakMb,
    loopDelayP99Ms: delay.p99Ms,
  };
}

/** How many deliveries one subscription has, in any state (its delivery log's total). */
async function deliveryCount(lethe: LetheUnderTest, subscription: string): Promise<number> {
  const page = (await lethe.management('GET', `/v1/event-subscription/${subscription}/delivery?size=1`)) as {
    total: number;
  };
  return page.total;
}

/** The pending and failed deliveries of one subscription, read from /metrics. */
async function deliveryStates(lethe: LetheUnderTest, subscription: string): Promise<Record<string, number>> {
  const text = await fetch(`${lethe.url}/metrics`).then((answer) => answer.text());
  const states: Record<string, number> = {};
  for (const match of text.matchAll(
    /^lethe_event_deliveries\{subscription="([^"]+)",state="([a-z]+)"\} (\d+)$/gm,
  )) {
    if (match[1] === subscription) states[match[2] as string] = Number(match[3]);
  }
  return states;
}

/**
 * What the event emitter costs the requests' processes: a Lethe of its own whose worker runs requests and
 * messages but not events (`lethe serve --work requests,messages`, as docs/operations.md describes), with
 * and without an enabled subscription to every event, A B A B A B A as above. With one, each status change
 * writes its deliveries in its own statement; nothing delivers them during the runs. Afterwards a `lethe
 * worker --work events` delivers every one of them, and the figure is void unless it does (the events were
 * written, and are whole).
 */
async function emitterFigure(context: Context, shape: RunShape): Promise<Figure> {
  const { log } = context;
  const lethe = await startLethe(context.adminUrl, WEBHOOK_ENV, [], ['--work', 'requests,messages']);
  try {
    log(`privacy requests, emitter only: setting up a Lethe without event delivery`);
    await setUp(lethe, context.receiverUrl, shape.population);
    const subscription = (enabled: boolean) =>
      lethe.management('PUT', '/v1/event-subscription/bench', {
        url: `${context.receiverUrl}/events`,
        events: EVENT_TYPES,
        format: 'cloudevents',
        enabled,
      });
    await subscription(false);
    await sustainedRun(lethe, 'emitter-cold', shape);
    log(
      `privacy requests, emitter only: ${EVENT_PAIRS} runs with an enabled subscription between runs with a disabled one, ${shape.seconds} s each`,
    );
    const withoutRuns = [await sustainedRun(lethe, 'emitter-without-0', shape)];
    const withRuns: Sustained[] = [];
    for (let pair = 1; pair <= EVENT_PAIRS; pair += 1) {
      await subscription(true);
      try {
        withRuns.push(await sustainedRun(lethe, `emitter-with-${pair}`, shape));
      } finally {
        await subscription(false);
      }
      withoutRuns.push(await sustainedRun(lethe, `emitter-without-${pair}`, shape));
    }
    const middle = medianPair(withRuns, withoutRuns);
    log(
      `  without ${withoutRuns.map((run) => run.perSecond.toFixed(1)).join(', ')}; with ${withRuns.map((run) => run.perSecond.toFixed(1)).join(', ')} completed/s; ratios ${middle.ratios.map((ratio) => ratio.toFixed(3)).join(', ')}`,
    );

    // Every delivery the runs wrote is pending (nothing delivered them), and afterwards every one of them
    // is delivered: none pending, none failed, no more and no fewer than were written.
    const written = await deliveryCount(lethe, 'bench');
    const before = await deliveryStates(lethe, 'bench');
    if (written === 0 || before.pending !== written)
      throw new Error(`emitter only: ${written} written, ${JSON.stringify(before)} before delivery`);
    await subscription(true);
    const started = performance.now();
    const deliverer = await startBackgroundProcess(
      path.join(ROOT, 'bin/lethe.mjs'),
      ['worker', '--work', 'events'],
      lethe.env,
      'Lethe worker running',
      await startFlags(),
    );
    try {
      let states = before;
      const until = performance.now() + 300_000;
      while ((states.pending ?? 0) > 0 && performance.now() < until) {
        await sleep(500);
        states = await deliveryStates(lethe, 'bench');
      }
      const after = await deliveryCount(lethe, 'bench');
      if (states.pending !== 0 || states.failed !== 0 || after !== written)
        throw new Error(`emitter only: ${written} written, afterwards ${after}: ${JSON.stringify(states)}`);
      log(
        `  ${written} deliveries written during the runs, all delivered afterwards by a lethe worker --work events in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    } finally {
      await deliverer.stop();
    }
    return figure({
      name: 'privacy requests completed/s, 1 worker, emitting events delivered elsewhere (median pair)',
      value: middle.run.perSecond,
      unit: 'req/s',
      baseline: middle.around,
      target: '>= 95% of the runs without one on either side (median of 3)',
      met: (value) => value >= 0.95 * middle.around,
    });
  } finally {
    await lethe.dispose();
  }
}

/**
 * Each run with a subscription against the mean of the runs without on either side of it: the median of
 * those pairs, and every pair's ratio.
 */
function medianPair(withRuns: Sustained[], withoutRuns: Sustained[]) {
  const pairs = withRuns.map((run, index) => {
    const around = ((withoutRuns[index]?.perSecond ?? 0) + (withoutRuns[index + 1]?.perSecond ?? 0)) / 2;
    return { run, around, ratio: run.perSecond / around };
  });
  const middle = [...pairs].sort((a, b) => a.ratio - b.ratio)[Math.floor(pairs.length / 2)];
  if (!middle) throw new Error('no run with an event subscription');
  return { ...middle, ratios: pairs.map(({ ratio }) => ratio) };
}

export async function privacyRequestFigures(context: Context): Promise<Figure[]> {
  const { log, quick } = context;
  const base: RunShape = quick ? QUICK_SHAPE : FULL_SHAPE;
  const shape: RunShape = { ...base, seconds: context.seconds ?? base.seconds };
  const { seconds, population } = shape;
  const figures: Figure[] = [];
  const lethe = await startLethe(context.adminUrl, WEBHOOK_ENV);
  try {
    const engine = await fetch(`${lethe.url}/v1/privacy-request`, {
      headers: { authorization: `Bearer ${lethe.token}` },
    });
    await engine.arrayBuffer();
    if (engine.status === 404) {
      log('privacy requests: skipped (this build has no /v1/privacy-request)');
      return figures;
    }
    log(`privacy requests: setting up (datastore of ${population} entities)`);
    await setUp(lethe, context.receiverUrl, population);

    log(`privacy requests: 1 worker, ${seconds} s`);
    const one = await sustainedRun(lethe, 'one', shape);
    log(`  ${one.submitted} submitted, ${one.perSecond.toFixed(1)} completed/s`);
    figures.push(
      figure({
        name: 'privacy requests completed/s, 1 worker',
        value: one.perSecond,
        unit: 'req/s',
        baseline: context.rawPosts / 4,
        target: '>= 200/s (baseline: raw POST/s / 4 webhook calls)',
        met: (value) => value >= 200,
      }),
      figure({
        name: 'privacy request creation -> complete p50, 1 worker',
        value: one.p50Ms,
        unit: 'ms',
        baseline: null,
        target: 'reported',
        met: () => true,
      }),
      figure({
        name: 'privacy request creation -> complete p99, 1 worker',
        value: one.p99Ms,
        unit: 'ms',
        baseline: null,
        target: 'reported',
        met: () => true,
      }),
      figure({
        name: 'API event-loop delay p99 under privacy-request load, 1 worker',
        value: one.loopDelayP99Ms,
        unit: 'ms',
        baseline: null,
        target: '<= 20 ms',
        met: (value) => value <= 20,
      }),
      figure({
        name: 'API RSS under privacy-request load',
        value: one.rssPeakMb,
        unit: 'MB',
        baseline: null,
        target: '<= 200 MB',
        met: (value) => value <= 200,
      }),
    );

    {
      // The same load with an event subscription listening to every event (docs/events.md): each status
      // change then writes its deliveries in its own statement, and the in-process worker signs and posts
      // them to the local receiver. Same process, same store. Runs with and without a subscription take
      // turns (A B A B A B A: the first 1-worker run above is the process's cold one, and the store grows
      // with every run); each run with one is compared with the mean of the runs on either side of it, and
      // the figure is the median of those three ratios. One A B A on this machine swung by more than the
      // 5 % it is meant to resolve (bench/README.md, issue 39).
      log(
        `privacy requests: 1 worker, ${EVENT_PAIRS} runs with an event subscription between runs without, ${seconds} s each`,
      );
      const withoutRuns = [await sustainedRun(lethe, 'without-0', shape)];
      const withRuns: Sustained[] = [];
      for (let pair = 1; pair <= EVENT_PAIRS; pair += 1) {
        await lethe.management('PUT', '/v1/event-subscription/bench', {
          url: `${context.receiverUrl}/events`,
          events: EVENT_TYPES,
          format: 'cloudevents',
        });
        try {
          withRuns.push(await sustainedRun(lethe, `events-${pair}`, shape));
        } finally {
          await lethe.management('DELETE', '/v1/event-subscription/bench');
        }
        withoutRuns.push(await sustainedRun(lethe, `without-${pair}`, shape));
      }
      const middle = medianPair(withRuns, withoutRuns);
      log(
        `  without ${withoutRuns.map((run) => run.perSecond.toFixed(1)).join(', ')}; with ${withRuns.map((run) => run.perSecond.toFixed(1)).join(', ')} completed/s; ratios ${middle.ratios.map((ratio) => ratio.toFixed(3)).join(', ')}`,
      );
      figures.push(
        figure({
          name: 'privacy requests completed/s, 1 worker, with an event subscription (median pair)',
          value: middle.run.perSecond,
          unit: 'req/s',
          baseline: middle.around,
          target: '>= 95% of the runs without one on either side (median of 3)',
          met: (value) => value >= 0.95 * middle.around,
        }),
      );
    }

    figures.push(await emitterFigure(context, shape));

    {
      log(`privacy requests: 2 workers (a second worker process), ${seconds} s`);
      const worker = await startBackgroundProcess(
        path.join(ROOT, 'bin/lethe.mjs'),
        ['worker'],
        lethe.env,
        'Lethe worker running',
        await startFlags(),
      );
      try {
        const two = await sustainedRun(lethe, 'two', shape);
        log(`  ${two.submitted} submitted, ${two.perSecond.toFixed(1)} completed/s`);
        figures.push(
          figure({
            name: 'privacy requests completed/s, 2 worker processes',
            value: two.perSecond,
            unit: 'req/s',
            baseline: one.perSecond,
            target: 'ratio to 1 worker reported',
            met: () => true,
          }),
        );
      } finally {
        await worker.stop();
      }
    }

    if (!quick) {
      // Up to 100,000 requests of the halting policy, submitted for at most 3 minutes, then up to 15
      // minutes more for the worker to pause every one. The API process must not hold them: its RSS once
      // they are paused is compared with its RSS before. The target counts only if all 100,000 paused.
      const wanted = 100_000;
      const submitFor = 180_000;
      const pauseWithin = 900_000;
      log(`privacy requests: RSS with up to ${wanted} paused requests`);
      const baseline = await lethe.rssMb();
      const alreadyPaused = await countWithStatus(lethe, 'paused');
      const started = performance.now();
      const submitUntil = started + submitFor;
      const submitted = await submitter(
        lethe,
        'bench_pause',
        'paused',
        population,
        async (count) => count < wanted && performance.now() < submitUntil,
      );
      const pauseUntil = performance.now() + pauseWithin;
      let reached = (await countWithStatus(lethe, 'paused')) - alreadyPaused;
      while (reached < submitted && performance.now() < pauseUntil) {
        await sleep(2_000);
        reached = (await countWithStatus(lethe, 'paused')) - alreadyPaused;
      }
      const pauseSeconds = (performance.now() - started) / 1000;
      log(`  ${reached} of ${submitted} paused in ${pauseSeconds.toFixed(0)} s`);
      const after = await lethe.rssMb();
      log(
        `  ${submitted} submitted, ${reached} paused; RSS ${baseline.toFixed(0)} -> ${after.toFixed(0)} MB`,
      );
      figures.push(
        figure({
          name: `API RSS with ${submitted} requests submitted (${reached} paused)`,
          value: after,
          unit: 'MB',
          baseline,
          target: `${wanted} paused, RSS flat: <= 1.1 x before`,
          met: (_value, ratio) => reached >= wanted && (ratio ?? Infinity) <= 1.1,
        }),
      );
    }
  } finally {
    await lethe.dispose();
  }
  return figures;
}
