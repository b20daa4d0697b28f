// PostgreSQL goes away under load and comes back (npm run test:chaos). Lethe runs as a child process
// (`lethe serve`: API and in-process worker) on a private PostgreSQL 15 cluster that the test crashes with
// `pg_ctl stop -m immediate` for about ten seconds while Area A, Area B and privacy-request traffic
// continues; a two_way webhook answers slowly so some requests are mid-call when the store goes.
// Proves: during the outage every answer is a 503 within a bound (never a 500, never a hang, the process
// stays up); /health answers 503 and says why without naming the database's address; after the restart
// the API answers 2xx again; every write acknowledged before or during the load is still readable; the
// worker resumes and every acknowledged privacy request completes.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type PrivatePostgres, startPrivatePostgres } from '../reliability/support/private-postgres.ts';
import { type LetheProcess, startLethe } from '../reliability/support/processes.ts';
import { type Receiver, startReceiver } from '../reliability/support/receiver.ts';
import { managementToken, type TimedAnswer, timedCall } from '../reliability/support/http.ts';

const OUTAGE_MS = 10_000;
/** No answer may take longer than this during the outage (the pool's connect timeout is 5 s). */
const OUTAGE_ANSWER_BOUND_MS = 6_000;
const LOAD_CLIENTS = 6;
/** Each phase (before, during and after the outage) runs at least this long ... */
const MIN_PHASE_MS = 3_000;
/** ... and until the load has made this many answers in it (the assertions ask for more than 20) ... */
const PHASE_ANSWERS = 30;
/** ... but no longer than this. */
const PHASE_BOUND_MS = 60_000;

interface Recorded extends TimedAnswer {
  operation: string;
}

describe('database outage under load', () => {
  let postgres: PrivatePostgres;
  let lethe: LetheProcess;
  let dataDir: string;
  let token: string;
  let apiKey: string;
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    // The webhook answers after a while, so some requests are in the middle of a call when the store goes.
    receiver.script('/outage-hook', () => ({ kind: 'answer', body: {}, delayMs: 300 }));
    postgres = await startPrivatePostgres();
    dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-outage-'));
    const clientSecret = randomBytes(24).toString('hex');
    lethe = await startLethe('serve', {
      DATABASE_URL: postgres.url,
      LETHE_DATA_DIR: dataDir,
      LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      LETHE_ROOT_CLIENT_ID: 'outage-root',
      LETHE_ROOT_CLIENT_SECRET: clientSecret,
      LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
      LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    });
    token = await managementToken(lethe.url, 'outage-root', clientSecret);
    const datastore = await timedCall(lethe.url, 'POST', '/v1/datastore', {
      token,
      json: { name: 'outage' },
    });
    assert.equal(datastore.status, 201, datastore.text);
    const key = await timedCall(lethe.url, 'POST', '/v1/api-key', {
      token,
      json: { name: 'outage load', datastores: ['outage'], rate_limit_per_minute: 1_000_000 },
    });
    assert.equal(key.status, 201, key.text);
    apiKey = key.body.key as string;
    const setup = async (method: string, urlPath: string, json: unknown) => {
      const answer = await timedCall(lethe.url, method, urlPath, { token, json });
      assert.equal(answer.status, 200, `${method} ${urlPath}: ${answer.text}`);
    };
    await setup('PATCH', '/v1/dsr/policy', [{ key: 'outage', name: 'Outage' }]);
    await setup('PATCH', '/v1/connection', [
      { key: 'outage_hook', name: 'outage hook', connection_type: 'https', access: 'read' },
    ]);
    await setup('PUT', '/v1/connection/outage_hook', { url: `${receiver.url}/outage-hook` });
    await setup('PUT', '/v1/policy/outage/webhook/pre_execution', [
      { connection_config_key: 'outage_hook', direction: 'two_way', key: 'hook', name: 'hook' },
    ]);
  });

  after(async () => {
    await lethe?.kill('SIGTERM');
    await postgres?.dispose();
    await receiver?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers 503 quickly while PostgreSQL is down, recovers, and loses no acknowledged write', async () => {
    const answers: Recorded[] = [];
    const connections: string[] = [];
    const entities: { id: string; email: string }[] = [];
    const privacyRequests: string[] = [];
    let counter = 0;
    const area = { 'api-key': apiKey, datastore: 'outage' };

    const operations: Record<string, () => Promise<Recorded>> = {
      'connection upsert': async () => {
        const key = `outage_${counter++}`;
        const answer = await timedCall(lethe.url, 'PATCH', '/v1/connection', {
          token,
          json: [{ name: key, key, connection_type: 'https', access: 'read' }],
        });
        if (answer.status === 200 && answer.body.succeeded.length === 1) connections.push(key);
        return { ...answer, operation: 'connection upsert' };
      },
      'policy list': async () => ({
        ...(await timedCall(lethe.url, 'GET', '/v1/dsr/policy', { token })),
        operation: 'policy list',
      }),
      'entity create': async () => {
        const email = `subject-${counter++}@example.com`;
        const id = randomUUID();
        const answer = await timedCall(lethe.url, 'POST', '/api/entity/create', {
          headers: area,
          json: [{ id, name: 'users', attributes: [{ name: 'email', value: email }] }],
        });
        if (answer.status === 203 && answer.body[0]?.error === null) entities.push({ id, email });
        return { ...answer, operation: 'entity create' };
      },
      'privacy request': async () => {
        const answer = await timedCall(lethe.url, 'POST', '/v1/privacy-request', {
          token,
          json: [{ policy_key: 'outage', identity: { email: `requester-${counter++}@example.com` } }],
        });
        if (answer.status === 200 && answer.body.succeeded.length === 1) {
          privacyRequests.push(answer.body.succeeded[0].id);
        }
        return { ...answer, operation: 'privacy request' };
      },
      'identity lookup': async () => ({
        ...(await timedCall(lethe.url, 'POST', '/api/entity/get-by-identity', {
          headers: area,
          json: [`subject-${Math.max(0, counter - 3)}@example.com`],
        })),
        operation: 'identity lookup',
      }),
    };
    const names = Object.keys(operations);

    let loading = true;
    const clients = Array.from({ length: LOAD_CLIENTS }, async (_, client) => {
      for (let step = client; loading; step++) {
        const name = names[step % names.length] as string;
        answers.push(await (operations[name] as () => Promise<Recorded>)());
        if (answers.at(-1)?.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Each phase lasts until the load has made enough answers in it, however slow the machine is, within
    // a bound: the load's pace is the machine's, never what the test asserts.
    const untilAnswered = async (count: number, since: number, boundMs: number) => {
      const deadline = Date.now() + boundMs;
      while (answers.filter((answer) => answer.startedAt >= since).length < count && Date.now() < deadline) {
        await sleep(100);
      }
    };

    const writtenBeforeOutage = { connections: 0, entities: 0 };
    let outageStartedAt = 0;
    let restartStartedAt = 0;
    let recoveredAt = 0;
    const healthDuringOutage: TimedAnswer[] = [];
    try {
      const loadStartedAt = Date.now();
      await sleep(MIN_PHASE_MS);
      while (
        (connections.length === 0 || entities.length === 0) &&
        Date.now() - loadStartedAt < PHASE_BOUND_MS
      ) {
        await sleep(100);
      }
      await untilAnswered(PHASE_ANSWERS, loadStartedAt, PHASE_BOUND_MS);
      Object.assign(writtenBeforeOutage, { connections: connections.length, entities: entities.length });
      await postgres.crash();
      outageStartedAt = Date.now();

      while (
        Date.now() - outageStartedAt < OUTAGE_MS ||
        (answers.filter((answer) => answer.startedAt >= outageStartedAt).length < PHASE_ANSWERS &&
          Date.now() - outageStartedAt < PHASE_BOUND_MS)
      ) {
        healthDuringOutage.push(
          await timedCall(lethe.url, 'GET', '/health', { boundMs: OUTAGE_ANSWER_BOUND_MS }),
        );
        await sleep(1000);
      }
      restartStartedAt = Date.now();
      await postgres.start();
      const restartedAt = Date.now();
      let lastHealth: TimedAnswer | undefined;
      while (!recoveredAt && Date.now() - restartStartedAt < 30_000) {
        lastHealth = await timedCall(lethe.url, 'GET', '/health');
        if (lastHealth.status === 200) recoveredAt = Date.now();
        else await sleep(200);
      }
      assert.ok(
        recoveredAt,
        `/health answers 200 within 30 s of the restart (server up after ${restartedAt - restartStartedAt} ms); last: ${lastHealth?.status} ${lastHealth?.error ?? lastHealth?.text}\n${lethe.output()}`,
      );
      await sleep(MIN_PHASE_MS);
      await untilAnswered(PHASE_ANSWERS, recoveredAt + 500, PHASE_BOUND_MS);
    } finally {
      loading = false;
      await Promise.all(clients);
    }

    assert.ok(lethe.alive(), `the process is still running:\n${lethe.output()}`);
    assert.doesNotMatch(
      lethe.output(),
      /unhandled|uncaught/i,
      'no unhandled rejection or exception was reported',
    );

    const failures = answers.filter(
      (answer) => answer.status <= 0 || (answer.status >= 500 && answer.status !== 503),
    );
    assert.deepEqual(
      failures.map(
        (answer) => `${answer.operation}: ${answer.status} ${answer.error ?? answer.text.slice(0, 200)}`,
      ),
      [],
      'no answer is a 5xx other than 503, a hang or a dropped connection',
    );
    const beforeOutage = answers.filter((answer) => answer.endedAt < outageStartedAt - 200);
    assert.ok(beforeOutage.length > 20, 'load ran before the outage');
    assert.ok(
      beforeOutage.every((answer) => answer.status < 300),
      'every answer before the outage is 2xx',
    );

    const duringOutage = answers.filter(
      (answer) => answer.startedAt >= outageStartedAt && answer.endedAt <= restartStartedAt,
    );
    assert.ok(duringOutage.length > 20, `load ran during the outage (${duringOutage.length} answers)`);
    assert.deepEqual(
      [...new Set(duringOutage.map((answer) => `${answer.operation}: ${answer.status}`))].sort(),
      names.map((name) => `${name}: 503`).sort(),
      'every operation answered 503 during the outage',
    );
    const slowest = Math.max(...duringOutage.map((answer) => answer.endedAt - answer.startedAt));
    assert.ok(slowest < OUTAGE_ANSWER_BOUND_MS, `the slowest outage answer took ${slowest} ms`);
    assert.ok(
      duringOutage.every(
        (answer) => answer.text.length > 0 && !/ECONNREFUSED|127\.0\.0\.1|postgres/i.test(answer.text),
      ),
      'outage answers carry a sentence, not the driver error',
    );

    assert.ok(healthDuringOutage.length >= 5);
    for (const health of healthDuringOutage) {
      assert.equal(health.status, 503);
      assert.equal(health.body.status, 'unavailable');
      assert.equal(health.body.database.reachable, false);
      assert.match(health.body.database.error, /^the database cannot be reached/, '/health says why');
      assert.doesNotMatch(health.text, new RegExp(`${postgres.port}|127\\.0\\.0\\.1`));
    }

    const afterRecovery = answers.filter((answer) => answer.startedAt >= recoveredAt + 500);
    assert.ok(afterRecovery.length > 20, 'load ran after the recovery');
    assert.deepEqual(
      afterRecovery
        .filter((answer) => answer.status >= 300)
        .map((answer) => `${answer.operation}: ${answer.status}`),
      [],
      'every answer after the recovery is 2xx',
    );

    assert.ok(writtenBeforeOutage.connections > 0 && writtenBeforeOutage.entities > 0);
    for (const key of connections) {
      const read = await timedCall(lethe.url, 'GET', `/v1/connection/${key}`, { token });
      assert.equal(read.status, 200, `acknowledged connection ${key} is readable`);
    }
    const read = await timedCall(lethe.url, 'POST', '/api/entity/get-by-id', {
      headers: area,
      json: entities.map((entity) => entity.id),
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body.map((entity: { attributes: { value: string }[] }) => entity.attributes[0]?.value),
      entities.map((entity) => entity.email),
      'every acknowledged entity is readable with its value',
    );

    // The worker resumes: every acknowledged privacy request completes, none is lost or stuck.
    const workDeadline = Date.now() + 90_000;
    let unfinished = [...privacyRequests];
    while (unfinished.length > 0 && Date.now() < workDeadline) {
      const states = await Promise.all(
        unfinished.map(async (id) => {
          const request = await timedCall(lethe.url, 'GET', `/v1/privacy-request/${id}`, { token });
          return [id, request.body?.status] as const;
        }),
      );
      assert.deepEqual(
        states.filter(([, status]) => status === 'error' || status === undefined),
        [],
        'no request ends in error because the store was away',
      );
      unfinished = states.filter(([, status]) => status !== 'complete').map(([id]) => id);
      if (unfinished.length > 0) await sleep(500);
    }
    const workResumedAfterMs = Date.now() - recoveredAt;
    assert.deepEqual(unfinished, [], 'every acknowledged privacy request completes after the restart');
    const hooked = new Set(receiver.calls.map((call) => call.body?.privacy_request_id));
    assert.ok(
      privacyRequests.every((id) => hooked.has(id)),
      'every acknowledged request called its webhook',
    );

    const figures = {
      answers: answers.length,
      acknowledged_privacy_requests: privacyRequests.length,
      all_privacy_requests_complete_after_recovery_ms: workResumedAfterMs,
      outage_answers: duringOutage.length,
      slowest_outage_answer_ms: slowest,
      recovery_after_restart_ms: recoveredAt - restartStartedAt,
      acknowledged_connections: connections.length,
      acknowledged_entities: entities.length,
    };
    process.stdout.write(`# database outage figures ${JSON.stringify(figures)}\n`);
  });
});
