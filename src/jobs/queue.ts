// The durable job queue (pg-boss) on the same server as everything else, through a small pool of its own.
// The only module that knows pg-boss: callers create queues, send jobs (inside their own transaction),
// work on them and look at a key's jobs through the methods below, in our names.
import { type JobResult, PgBoss } from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database, Queryable } from '../db/database.ts';

/**
 * How a queue keeps its jobs, in Lethe's words: `onePerKey` runs the jobs of one key one at a time (others
 * of that key wait their turn); `oneAtATime` runs at most one job of the whole queue at a time; `retries` failed attempts are tried again, `retryDelaySeconds` apart (doubling up to
 * `retryDelayMaxSeconds` with `retryBackoff`); a job running longer than `expireInSeconds`, or whose worker
 * stopped heartbeating for `heartbeatSeconds`, is given back to the queue.
 */
export interface QueueDefinition {
  onePerKey?: boolean;
  oneAtATime?: boolean;
  retries: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  retryDelayMaxSeconds?: number;
  expireInSeconds: number;
  heartbeatSeconds?: number;
}

type PgBossQueueOptions = NonNullable<Parameters<PgBoss['createQueue']>[1]>;

function pgBossQueueOptions(definition: QueueDefinition): PgBossQueueOptions {
  return {
    policy: definition.onePerKey ? 'singleton' : definition.oneAtATime ? 'exclusive' : 'standard',
    retryLimit: definition.retries,
    expireInSeconds: definition.expireInSeconds,
    ...(definition.retryDelaySeconds !== undefined && { retryDelay: definition.retryDelaySeconds }),
    ...(definition.retryBackoff !== undefined && { retryBackoff: definition.retryBackoff }),
    ...(definition.retryDelayMaxSeconds !== undefined && { retryDelayMax: definition.retryDelayMaxSeconds }),
    ...(definition.heartbeatSeconds !== undefined && { heartbeatSeconds: definition.heartbeatSeconds }),
  };
}

/** pg-boss's states of a job that is still to run or running (created, waiting a retry, active). */
const LIVE_JOB_STATES = new Set(['created', 'retry', 'active']);

/** A job to send: its payload and its key (jobs of one key run one at a time on a `onePerKey` queue). */
export interface JobToSend<Data extends object> {
  data: Data;
  key: string;
}

export interface EachJobOptions {
  pollingIntervalSeconds: number;
  localConcurrency: number;
  batchSize: number;
  /** The output stored on a failed job, in place of the error (which may quote personal data). */
  failureMessage: string;
}

/** ready: waiting for a worker now; deferred: waiting for a later start; failed: failed jobs still kept. */
export type JobCountState = 'ready' | 'deferred' | 'active' | 'failed';

export class Queue {
  private readonly boss: PgBoss;
  #running = false;

  constructor(config: Pick<Config, 'jobSuperviseIntervalSeconds'>, db: Database) {
    // Expired and heartbeat-lost jobs are returned to the queue by the supervisor's monitor pass.
    const supervision = {
      superviseIntervalSeconds: config.jobSuperviseIntervalSeconds,
      monitorIntervalSeconds: config.jobSuperviseIntervalSeconds,
    };
    this.boss = new PgBoss({
      connectionString: db.connectionString,
      schema: 'pgboss',
      max: 5,
      connectionTimeoutMillis: 5000,
      ...supervision,
    });
  }

  get running(): boolean {
    return this.#running;
  }

  async start(onError: (error: Error) => void): Promise<void> {
    this.boss.on('error', onError);
    await this.boss.start();
    this.#running = true;
  }

  /**
   * Jobs of every queue by state, from pg-boss's queue table: its monitor refreshes these counts every
   * supervise interval, so they can lag that much behind the jobs themselves.
   */
  async jobCounts(): Promise<{ queue: string; state: JobCountState; count: number }[]> {
    const queues = await this.boss.getQueues();
    return queues.flatMap((queue) => [
      { queue: queue.name, state: 'ready' as const, count: queue.readyCount },
      { queue: queue.name, state: 'deferred' as const, count: queue.deferredCount },
      { queue: queue.name, state: 'active' as const, count: queue.activeCount },
      { queue: queue.name, state: 'failed' as const, count: queue.failedCount },
    ]);
  }

  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }

  /**
   * Creates the queue if it does not exist. Its key rule is fixed at creation; its retries, expiry and
   * heartbeat are set again on every start, so a changed definition (or heartbeat setting) applies.
   */
  async defineQueue(name: string, definition: QueueDefinition): Promise<void> {
    const options = pgBossQueueOptions(definition);
    await this.boss.createQueue(name, options);
    const { policy: _fixedAtCreation, ...changeable } = options;
    await this.boss.updateQueue(name, changeable);
  }

  /** Sends the jobs in one statement inside the caller's transaction: they exist only if it commits. */
  async sendInTransaction<Data extends object>(
    tx: Queryable,
    name: string,
    jobs: readonly JobToSend<Data>[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss.insert(
      name,
      jobs.map((job) => ({ data: job.data, singletonKey: job.key })),
      {
        db: {
          executeSql: async (text: string, values?: unknown[]) => {
            const { rows } = await tx.query(text, values ?? []);
            return { rows };
          },
        },
      },
    );
  }

  /** Sends a job that no worker takes before `startAfter`. */
  async sendAt<Data extends object>(name: string, data: Data, startAfter: Date): Promise<void> {
    await this.boss.send(name, data, { startAfter });
  }

  /** Sends a job with `key` unless one with the same key was sent in the last `withinSeconds`. */
  async sendOnce(name: string, key: string, withinSeconds: number): Promise<void> {
    await this.boss.send(name, {}, { singletonKey: key, singletonSeconds: withinSeconds });
  }

  /**
   * Works on `name` in batches: each job settles on its own, completed when `handle` resolves, failed
   * (and retried by the queue's policy) when it throws; the error goes to `onFailure`. A full batch
   * fetches the next one at once: pg-boss otherwise waits a polling interval after every fetch, which
   * would take one batch a second while there is a backlog.
   */
  async workEach<Data extends object>(
    name: string,
    options: EachJobOptions,
    handle: (data: Data) => Promise<void>,
    onFailure: (error: Error) => void,
  ): Promise<void> {
    await this.boss.work<Data>(
      name,
      {
        pollingIntervalSeconds: options.pollingIntervalSeconds,
        localConcurrency: options.localConcurrency,
        batchSize: options.batchSize,
        burstWhenBatchFull: true,
        perJobResults: true,
      },
      async (jobs) =>
        Promise.all(
          jobs.map(async (job): Promise<JobResult> => {
            try {
              await handle(job.data);
              return { id: job.id, status: 'completed' };
            } catch (error) {
              onFailure(error instanceof Error ? error : new Error(String(error)));
              return { id: job.id, status: 'failed', output: { message: options.failureMessage } };
            }
          }),
        ),
    );
  }

  /** Runs `handle` for each job of `name`, one at a time; a throw fails the job. */
  async work(name: string, options: { pollingIntervalSeconds: number }, handle: () => Promise<void>) {
    await this.boss.work(name, options, handle);
  }

  /** Whether a job sent with `key` is still to run or running (not completed, failed for good or gone). */
  async hasLiveJob(name: string, key: string): Promise<boolean> {
    const jobs = await this.boss.findJobs(name, { key });
    return jobs.some((job) => LIVE_JOB_STATES.has(job.state));
  }

  /** Deletes the jobs sent with `key`, whatever their state: a job lost as if its table row had gone. */
  async discardJobs(name: string, key: string): Promise<number> {
    const jobs = await this.boss.findJobs(name, { key });
    if (jobs.length > 0) {
      await this.boss.deleteJob(
        name,
        jobs.map((job) => job.id),
      );
    }
    return jobs.length;
  }
}
