// The retention of requests (LETHE_REQUEST_RETENTION_DAYS, default 730 days: CCPA regs §7101's 24 months):
// a job on its own queue, asked for hourly by every worker process and run by one at a time, purges the
// identity values of requests closed longer ago. The record (dates, type, outcome, log) stays.
import type { Queue } from '../jobs/queue.ts';
import { addDays } from '../deadlines/calendar.ts';
import { clockRepository } from '../privacy-requests/clock-repository.ts';
import type { Services } from '../services.ts';

export const RETENTION_QUEUE = 'request-retention';
const RETENTION_INTERVAL_SECONDS = 3600;

export async function createRetentionQueue(queue: Queue): Promise<void> {
  await queue.defineQueue(RETENTION_QUEUE, { oneAtATime: true, retries: 0, expireInSeconds: 600 });
}

/** One pass: purges the identity values of requests closed more than the retention days before `now`. */
export async function purgeRetainedIdentities(
  services: Pick<Services, 'db' | 'config'>,
  now = new Date(),
): Promise<number> {
  return clockRepository.purgeClosedBefore(services.db, addDays(now, -services.config.requestRetentionDays));
}

/** Works the retention queue and asks for a pass at start and every hour; `stop` ends the asking. */
export async function startRetentionJob(
  services: Pick<Services, 'db' | 'config' | 'queue'>,
  onError: (error: Error) => void,
): Promise<{ stop(): void }> {
  await createRetentionQueue(services.queue);
  await services.queue.work(
    RETENTION_QUEUE,
    { pollingIntervalSeconds: services.config.jobPollingIntervalSeconds },
    async () => {
      await purgeRetainedIdentities(services);
    },
  );
  const ask = () =>
    services.queue.sendOnce(RETENTION_QUEUE, 'retention', RETENTION_INTERVAL_SECONDS).catch(onError);
  void ask();
  const timer = setInterval(ask, RETENTION_INTERVAL_SECONDS * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
