// Starting and stopping a Lethe process: the API, the workers, or both. Order matters: store and
// migrations first, then the queue, then the listeners; shutdown runs in reverse and finishes in-flight work.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { LOG_UPKEEP_INTERVAL_MS, maintainLogPartitions } from '../db/log-partitions.ts';
import { buildApp, type LoggerOption } from './app.ts';
import { type RunningOutboxWorker, startOutboxWorker } from '../outbox/worker.ts';
import { type RunningEventWorker, startEventWorker } from '../events/worker.ts';
import { createPrivacyRequestQueues } from '../privacy-requests/jobs.ts';
import { type RunningWorker, startPrivacyRequestWorker } from '../privacy-requests/engine/worker.ts';
import { logDeliveryAttempt } from '../privacy-requests/messages/delivery-log.ts';
import { startRetentionJob } from '../reports/retention.ts';
import { runLayoutMigration } from '../datastore/entity-layout.ts';
import { createServices } from './create-services.ts';
import { WORK_KINDS, type WorkKind } from './work.ts';
import type { Services } from '../services.ts';

export { createServices };

export interface StartOptions {
  api: boolean;
  worker: boolean;
  /** The work this process's worker does (all of WORK_KINDS unless given). */
  work?: readonly WorkKind[];
  logger?: LoggerOption;
  announce?: (message: string) => void;
}

export interface RunningService {
  services: Services;
  app: FastifyInstance | undefined;
  /** The address the API listens on, when it runs. */
  url: string | undefined;
  stop(): Promise<void>;
}

export async function startService(config: Config, options: StartOptions): Promise<RunningService> {
  const announce = options.announce ?? ((message: string) => process.stdout.write(`${message}\n`));
  const services = await createServices(config, announce);
  const upkeepLogs = () =>
    maintainLogPartitions(services.db, services.config.auditRetentionDays).then(
      (dropped) => {
        if (dropped.length > 0) announce(`log retention dropped the partitions ${dropped.join(', ')}`);
      },
      (error: Error) => announce(`log partition upkeep failed: ${error.message}`),
    );
  await upkeepLogs();
  const upkeep = setInterval(() => void upkeepLogs(), LOG_UPKEEP_INTERVAL_MS);
  upkeep.unref();
  const logError = (error: Error) => announce(`queue error: ${error.message}`);
  await services.queue.start(logError);
  await createPrivacyRequestQueues(services.queue, services.config);
  const does = (kind: WorkKind) => options.worker && (options.work ?? WORK_KINDS).includes(kind);
  const worker: RunningWorker | undefined = does('requests')
    ? await startPrivacyRequestWorker(services, logError)
    : undefined;
  const outbox: RunningOutboxWorker | undefined = does('messages')
    ? startOutboxWorker(services, logDeliveryAttempt, logError)
    : undefined;
  const events: RunningEventWorker | undefined = does('events')
    ? startEventWorker(services, logError)
    : undefined;
  const retention = does('requests') ? await startRetentionJob(services, logError) : undefined;
  // Entities stored before migration 029 move to their documents in the background (docs/area-b.md).
  const layout = does('requests')
    ? runLayoutMigration(services.db, services.keyring, { announce })
    : undefined;

  let app: FastifyInstance | undefined;
  let url: string | undefined;
  if (options.api) {
    await services.operators.signIn.prepare();
    app = await buildApp(services, { logger: options.logger });
    url = await app.listen({ port: config.port, host: config.host });
    // Links mailed to subjects point at the address the API really listens on unless LETHE_PUBLIC_URL says.
    services.config.publicUrl ??= url;
  }

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      // The store closes whatever failed before it: its close is what stops the embedded PostgreSQL.
      try {
        clearInterval(upkeep);
        retention?.stop();
        await layout?.stop();
        await app?.close();
        await services.queue.stop();
        await worker?.stop();
        await outbox?.stop();
        await events?.stop();
      } finally {
        await services.db.close();
      }
    })();
    return stopping;
  };
  return { services, app, url, stop };
}
