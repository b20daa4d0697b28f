// The durable job queue (pg-boss) on the same store as everything else: on PostgreSQL it keeps its own
// pool; on PGlite it runs its statements through the store's serialization lock.
import { PgBoss } from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';

/** ready: waiting for a worker now; deferred: waiting for a later start; failed: failed jobs still kept. */
export type JobCountState = 'ready' | 'deferred' | 'active' | 'failed';

export class Queue {
  readonly boss: PgBoss;
  #running = false;

  constructor(config: Pick<Config, 'databaseUrl' | 'jobSuperviseIntervalSeconds'>, db: Database) {
    const adapter = db.queueDatabase();
    // Expired and heartbeat-lost jobs are returned to the queue by the supervisor's monitor pass.
    const supervision = {
      superviseIntervalSeconds: config.jobSuperviseIntervalSeconds,
      monitorIntervalSeconds: config.jobSuperviseIntervalSeconds,
    };
    this.boss = adapter
      ? new PgBoss({ db: adapter, backend: 'pglite', schema: 'pgboss', ...supervision })
      : new PgBoss({
          connectionString: config.databaseUrl,
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
}
