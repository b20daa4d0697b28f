// Crash safety on PostgreSQL (npm run test:chaos). The API runs in this process (no in-process worker);
// two `lethe worker` child processes share the work. A real receiver on 127.0.0.1 answers ordered
// one_way and two_way pre- and post-execution webhooks, the two_way ones sometimes slowly. 500 privacy
// requests go in; a random worker is SIGKILLed at three random moments and restarted.
// Proves: every request reaches `complete`; each request's webhooks arrive at least once each, in the
// configured order (a repeat only ever repeats the call just made); every repeat carries the same
// Idempotency-Key; a dead worker's requests are picked up again (the time it takes is measured).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type LetheProcess, startLethe } from '../reliability/support/processes.ts';
import { type Receiver, startReceiver } from '../reliability/support/receiver.ts';

const REQUESTS = Number(process.env.LETHE_CHAOS_REQUESTS ?? 500);
const KILLS = 3;
const HEARTBEAT_SECONDS = 10;
const WEBHOOKS = [
  { timing: 'pre_execution', short: 'pre', key: 'pre_one', direction: 'one_way' },
  { timing: 'pre_execution', short: 'pre', key: 'pre_two', direction: 'two_way' },
  { timing: 'pre_execution', short: 'pre', key: 'pre_three', direction: 'one_way' },
  { timing: 'post_execution', short: 'post', key: 'post_one', direction: 'two_way' },
  { timing: 'post_execution', short: 'post', key: 'post_two', direction: 'one_way' },
] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('crash safety: workers SIGKILLed under load', () => {
  let api: TestService;
  let receiver: Receiver;
  let token: string;
  let workerEnv: Record<string, string>;
  const workers: LetheProcess[] = [];

  before(async () => {
    assert.ok(
      process.env.LETHE_TEST_DATABASE_URL,
      'the chaos run needs PostgreSQL: set LETHE_TEST_DATABASE_URL',
    );
    receiver = await startReceiver();
    const engine: Partial<Config> = {
      allowInsecureWebhooks: true,
      webhookAllowedHosts: ['127.0.0.1'],
      jobHeartbeatSeconds: HEARTBEAT_SECONDS,
    };
    api = await startTestService(engine, { worker: false });
    token = await api.rootToken();
    const root = api.config.rootClient as { id: string; secret: string };
    workerEnv = {
      DATABASE_URL: api.config.databaseUrl as string,
      LETHE_ENCRYPTION_KEY: (api.config.encryptionKey as Buffer).toString('hex'),
      LETHE_ROOT_CLIENT_ID: root.id,
      LETHE_ROOT_CLIENT_SECRET: root.secret,
      LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
      LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      LETHE_WEBHOOK_TIMEOUT_MS: '5000',
      LETHE_WORKER_HEARTBEAT_SECONDS: String(HEARTBEAT_SECONDS),
      LETHE_DATA_DIR: api.config.dataDir,
    };

    const call = async (method: string, path: string, json: unknown) => {
      const answer = await api.call(method, path, { token, json });
      assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
      return answer.body;
    };
    await call('PATCH', '/v1/dsr/policy', [{ key: 'chaos', name: 'Chaos' }]);
    for (const webhook of WEBHOOKS) {
      await call('PATCH', '/v1/connection', [
        { key: webhook.key, name: webhook.key, connection_type: 'https', access: 'read' },
      ]);
      await call('PUT', `/v1/connection/${webhook.key}`, {
        url: `${receiver.url}/${webhook.key}`,
        authorization: `Bearer secret-${webhook.key}`,
      });
    }
    for (const timing of ['pre_execution', 'post_execution']) {
      await call(
        'PUT',
        `/v1/policy/chaos/webhook/${timing}`,
        WEBHOOKS.filter((webhook) => webhook.timing === timing).map((webhook) => ({
          connection_config_key: webhook.key,
          direction: webhook.direction,
          key: webhook.key,
          name: webhook.key,
        })),
      );
    }
    // two_way webhooks answer after 0-300 ms, one in ten after 1.5 s; one_way ones at once.
    for (const webhook of WEBHOOKS.filter((candidate) => candidate.direction === 'two_way')) {
      receiver.script(`/${webhook.key}`, () => ({
        kind: 'answer',
        body: {},
        delayMs: Math.random() < 0.1 ? 1500 : Math.floor(Math.random() * 300),
      }));
    }
    for (let index = 0; index < 2; index++) workers.push(await startLethe('worker', workerEnv));
  });

  after(async () => {
    for (const worker of workers) await worker.kill('SIGTERM');
    await api?.stop();
    await receiver?.close();
  });

  it(`completes ${REQUESTS} requests in order, at least once, while workers die`, async () => {
    const startedAt = Date.now();
    const ids: string[] = [];
    for (let offset = 0; offset < REQUESTS; offset += 50) {
      const batch = Array.from({ length: Math.min(50, REQUESTS - offset) }, (_, index) => ({
        policy_key: 'chaos',
        identity: { email: `subject-${offset + index}@example.com` },
        external_id: `chaos-${offset + index}`,
      }));
      const answer = await api.call('POST', '/v1/privacy-request', { token, json: batch });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body.failed, []);
      ids.push(...answer.body.succeeded.map((request: { id: string }) => request.id));
    }

    const countComplete = async () =>
      (
        await api.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM privacy_requests WHERE status = 'complete'",
        )
      ).rows[0]?.n ?? 0;

    // Three kills at random moments while work remains, each followed by a restart of that worker.
    const kills: { at: number; pid: number; completeBefore: number }[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(1000 + Math.floor(Math.random() * 4000));
      const completeBefore = await countComplete();
      assert.ok(
        completeBefore < REQUESTS,
        `kill ${kill + 1} lands while work remains (${completeBefore} done)`,
      );
      const slot = Math.floor(Math.random() * workers.length);
      const victim = workers[slot] as LetheProcess;
      const at = Date.now();
      assert.equal(await victim.kill('SIGKILL'), 'SIGKILL');
      kills.push({ at, pid: victim.pid, completeBefore });
      await sleep(Math.floor(Math.random() * 1500));
      workers[slot] = await startLethe('worker', workerEnv);
    }

    const deadline = Date.now() + 180_000;
    let complete = 0;
    while (Date.now() < deadline) {
      complete = await countComplete();
      if (complete === REQUESTS) break;
      await sleep(500);
    }
    const finishedAt = Date.now();
    const states = await api.services.db.query<{ status: string; n: number }>(
      'SELECT status, count(*)::int AS n FROM privacy_requests GROUP BY status',
    );
    assert.equal(complete, REQUESTS, `every request completes: ${JSON.stringify(states.rows)}`);
    for (const worker of workers) assert.ok(worker.alive(), worker.output());

    // Every request completes through the API too, and its webhooks arrived in order, at least once.
    const listed = await api.call('GET', '/v1/privacy-request?status=complete&size=1', { token });
    assert.equal(listed.body.total, REQUESTS);
    const byRequest = new Map<string, typeof receiver.calls>();
    for (const received of receiver.calls) {
      const id = received.body?.privacy_request_id as string;
      byRequest.set(id, [...(byRequest.get(id) ?? []), received]);
    }
    const expected = WEBHOOKS.map((webhook) => `/${webhook.key}`);
    let repeats = 0;
    const watchdogDelays: number[] = [];
    for (const id of ids) {
      const calls = byRequest.get(id) ?? [];
      const collapsed = calls
        .map((received) => received.path)
        .filter((path, index, paths) => index === 0 || paths[index - 1] !== path);
      assert.deepEqual(collapsed, expected, `${id}: webhooks in the configured order, none skipped`);
      repeats += calls.length - expected.length;
      for (const received of calls) {
        const webhook = WEBHOOKS.find((candidate) => `/${candidate.key}` === received.path);
        assert.equal(
          received.headers['idempotency-key'],
          `${id}:${webhook?.key}:${webhook?.short}`,
          'every call, repeats included, carries the same Idempotency-Key',
        );
      }
      // A repeated call after a kill: how long the request waited before another worker took it up.
      for (let index = 1; index < calls.length; index++) {
        const previous = calls[index - 1] as (typeof calls)[number];
        const current = calls[index] as (typeof calls)[number];
        const kill = kills.find((candidate) => previous.at <= candidate.at && candidate.at < current.at);
        if (kill && current.path === previous.path) watchdogDelays.push(current.at - kill.at);
      }
    }
    assert.ok(repeats >= 0);

    const figures = {
      requests: REQUESTS,
      kills: kills.length,
      complete_after_ms: finishedAt - startedAt,
      callbacks: receiver.calls.length,
      repeated_callbacks: repeats,
      requests_taken_over: watchdogDelays.length,
      takeover_after_kill_ms_max: watchdogDelays.length ? Math.max(...watchdogDelays) : null,
      takeover_after_kill_ms_min: watchdogDelays.length ? Math.min(...watchdogDelays) : null,
    };
    process.stdout.write(`# crash safety figures ${JSON.stringify(figures)}\n`);
  });
});
