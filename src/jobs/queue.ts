// The durable job queue (pg-boss) on the same server as everything else, through a small pool of its own.
import { PgBoss } from 'pg-boss';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';

export class Queue {
  readonly boss: PgBoss;
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

  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}
