// The queue in Lethe's words (src/jobs/queue.ts) over a real pg-boss on a real database: a `onePerKey` queue
// runs the jobs of one key one at a time, `hasLiveJob` tells a live job from a finished one, a failed job is tried again
// `retries` times, and a definition given again on a later start applies its new retries.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { openDatabase } from '../../src/db/open.ts';
import { Queue } from '../../src/jobs/queue.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the job queue', () => {
  let database: TestDatabase;
  let db: Database;
  let queue: Queue;
  /**
   * What pg-boss reports while the tests run; each test ends with none. Kept, not thrown: the drop of the
   * database at the end can end a connection pg-boss is still letting go of, after the last test.
   */
  const queueErrors: Error[] = [];
  before(async () => {
    database = await createTestDatabase();
    db = await openDatabase({ ...loadConfig({}), databaseUrl: database.url });
    queue = new Queue({ jobSuperviseIntervalSeconds: 1 }, db);
    await queue.start((error) => queueErrors.push(error));
  });
  afterEach(() => {
    assert.deepEqual(queueErrors, []);
  });
  after(async () => {
    await queue.stop();
    await db.close();
    await database.drop();
  });

  it('runs the jobs of one key one at a time on a onePerKey queue, and tells a live job from a finished one', async () => {
    await queue.defineQueue('one-per-key', { onePerKey: true, retries: 0, expireInSeconds: 60 });
    await db.transaction(async (tx) => {
      await queue.sendInTransaction(tx, 'one-per-key', [
        { data: { key: 'request-a', n: 1 }, key: 'request-a' },
        { data: { key: 'request-a', n: 2 }, key: 'request-a' },
        { data: { key: 'request-b', n: 3 }, key: 'request-b' },
      ]);
    });
    assert.equal(await queue.hasLiveJob('one-per-key', 'request-a'), true);
    assert.equal(await queue.hasLiveJob('one-per-key', 'request-c'), false);
    const handled: number[] = [];
    const running = new Map<string, number>();
    let mostAtOnceForA = 0;
    await queue.workEach<{ key: string; n: number }>(
      'one-per-key',
      { pollingIntervalSeconds: 0.5, localConcurrency: 3, batchSize: 5, failureMessage: 'failed' },
      async (data) => {
        running.set(data.key, (running.get(data.key) ?? 0) + 1);
        if (data.key === 'request-a') mostAtOnceForA = Math.max(mostAtOnceForA, running.get(data.key) ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 300));
        running.set(data.key, (running.get(data.key) ?? 1) - 1);
        handled.push(data.n);
      },
      (error) => assert.fail(error),
    );
    await until(async () => handled.length === 3, 'the three jobs to run');
    await until(async () => !(await queue.hasLiveJob('one-per-key', 'request-a')), 'request-a to finish');
    assert.deepEqual(
      handled.sort((x, y) => x - y),
      [1, 2, 3],
    );
    assert.equal(mostAtOnceForA, 1, 'two jobs of one key never run at once');
  });

  it('tries a failed job again as many times as the definition says, the latest definition winning', async () => {
    await queue.defineQueue('retried', { retries: 5, retryDelaySeconds: 1, expireInSeconds: 60 });
    await queue.defineQueue('retried', { retries: 1, retryDelaySeconds: 1, expireInSeconds: 60 });
    await db.transaction((tx) => queue.sendInTransaction(tx, 'retried', [{ data: {}, key: 'failing' }]));
    let attempts = 0;
    await queue.workEach(
      'retried',
      { pollingIntervalSeconds: 0.5, localConcurrency: 1, batchSize: 1, failureMessage: 'failed' },
      async () => {
        attempts += 1;
        throw new Error('the receiver is down');
      },
      () => undefined,
    );
    await until(async () => !(await queue.hasLiveJob('retried', 'failing')), 'the job to fail for good');
    assert.equal(attempts, 2, 'one attempt and one retry');
  });
});
