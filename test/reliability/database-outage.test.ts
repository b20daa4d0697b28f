// PostgreSQL goes away under load and comes back. Lethe runs as a child process (`lethe serve`: API and
// in-process worker) on a private PostgreSQL 15 cluster that the test crashes with
// `pg_ctl stop -m immediate` for about ten seconds while Area A and Area B traffic continues.
// Proves: during the outage every answer is a 503 within a bound (never a 500, never a hang, the
// process stays up); /health answers 503 naming the database; after the restart the API answers 2xx
// again; every write acknowledged before the outage is still readable afterwards.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isStoreUnavailable } from '../../src/db/database.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import {
  type PrivatePostgres,
  privatePostgresAvailable,
  startPrivatePostgres,
} from './support/private-postgres.ts';
import { type LetheProcess, startLethe } from './support/processes.ts';
import { managementToken, type TimedAnswer, timedCall } from './support/http.ts';

const OUTAGE_MS = 10_000;
/** No answer may take longer than this during the outage (the pool's connect timeout is 5 s). */
const OUTAGE_ANSWER_BOUND_MS = 6_000;
const LOAD_CLIENTS = 6;

interface Recorded extends TimedAnswer {
  operation: string;
}

describe(
  'database outage under load',
  { skip: !privatePostgresAvailable && 'PostgreSQL 15 server binaries are not installed' },
  () => {
    let postgres: PrivatePostgres;
    let lethe: LetheProcess;
    let dataDir: string;
    let token: string;
    let apiKey: string;

    before(async () => {
      postgres = await startPrivatePostgres();
      dataDir = await mkdtemp(path.join(tmpdir(), 'lethe-outage-'));
      const clientSecret = randomBytes(24).toString('hex');
      lethe = await startLethe('serve', {
        DATABASE_URL: postgres.url,
        LETHE_DATA_DIR: dataDir,
        LETHE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        LETHE_ROOT_CLIENT_ID: 'outage-root',
        LETHE_ROOT_CLIENT_SECRET: clientSecret,
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
    });

    after(async () => {
      await lethe?.kill('SIGTERM');
      await postgres?.dispose();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    it('answers 503 quickly while PostgreSQL is down, recovers, and loses no acknowledged write', async () => {
      const answers: Recorded[] = [];
      const connections: string[] = [];
      const entities: { id: string; email: string }[] = [];
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

      const writtenBeforeOutage = { connections: 0, entities: 0 };
      let outageStartedAt = 0;
      let restartStartedAt = 0;
      let recoveredAt = 0;
      const healthDuringOutage: TimedAnswer[] = [];
      try {
        await sleep(3000);
        Object.assign(writtenBeforeOutage, { connections: connections.length, entities: entities.length });
        await postgres.crash();
        outageStartedAt = Date.now();

        while (Date.now() - outageStartedAt < OUTAGE_MS) {
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
        await sleep(3000);
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

      const figures = {
        answers: answers.length,
        outage_answers: duringOutage.length,
        slowest_outage_answer_ms: slowest,
        recovery_after_restart_ms: recoveredAt - restartStartedAt,
        acknowledged_connections: connections.length,
        acknowledged_entities: entities.length,
      };
      process.stdout.write(`# database outage figures ${JSON.stringify(figures)}\n`);
    });

    it('rejects a transaction whose connection dies between two statements, without ending the process', async () => {
      const db = await openPostgres(postgres.url);
      try {
        const outcome = db.transaction(async (tx) => {
          await tx.query('SELECT 1');
          await postgres.crash();
          // The socket's error arrives while the client is checked out and idle, between two statements.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.query('SELECT 2');
        });
        await assert.rejects(outcome, (error) => isStoreUnavailable(error));
        await postgres.start();
        const { rows } = await db.query<{ answer: number }>('SELECT 42 AS answer');
        assert.deepEqual(rows, [{ answer: 42 }], 'the pool hands out a fresh connection afterwards');
      } finally {
        await db.close();
      }
    });
  },
);
