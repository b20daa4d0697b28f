// The privacy-request queues (jobs/queue.ts). `privacy-request-advance` holds "advance this request" jobs,
// one job at a time per request id (`onePerKey`), so at most one worker runs a given request at
// a time while any number run different ones; a worker heartbeats while it runs, and a job whose worker
// died is given back to the queue once its heartbeat is lost. Jobs are sent inside the transaction of
// the change that calls for them (approval, resume, retry), so a committed change always has its job.
// `privacy-request-pause-expiry` holds one job per pause, due when the pause expires, so a paused request
// goes to `error` within a polling interval of its expiry. `privacy-request-sweep` runs the same expiry as
// a safety net (a job lost or never sent), the identity purge and the lost-job check, at most once per
// interval across every worker. This module never runs a step itself.
import type { Config } from '../config.ts';
import type { Queryable } from '../db/database.ts';
import type { Queue } from '../jobs/queue.ts';

export const ADVANCE_QUEUE = 'privacy-request-advance';
export const SWEEP_QUEUE = 'privacy-request-sweep';
export const PAUSE_EXPIRY_QUEUE = 'privacy-request-pause-expiry';
/** After the pause's expiry, so the job never finds it not yet expired by the database's clock. */
const PAUSE_EXPIRY_MARGIN_MS = 500;

export interface AdvanceJob {
  privacyRequestId: string;
}

/** Creates the queues (idempotent); every process that sends or works on them calls it at start. */
export async function createPrivacyRequestQueues(
  queue: Queue,
  config: Pick<Config, 'jobHeartbeatSeconds'>,
): Promise<void> {
  await queue.defineQueue(ADVANCE_QUEUE, {
    onePerKey: true,
    heartbeatSeconds: config.jobHeartbeatSeconds,
    // A run can be long (the datastore step); liveness is the heartbeat's job, not the expiry's.
    expireInSeconds: 6 * 3600,
    // Throwing means the store or the worker failed, not the request: try again, backing off.
    retries: 50,
    retryDelaySeconds: 1,
    retryBackoff: true,
    retryDelayMaxSeconds: 60,
  });
  await queue.defineQueue(SWEEP_QUEUE, { oneAtATime: true, retries: 0, expireInSeconds: 300 });
  await queue.defineQueue(PAUSE_EXPIRY_QUEUE, {
    retries: 10,
    retryDelaySeconds: 1,
    retryBackoff: true,
    expireInSeconds: 300,
  });
}

/** Queues the expiry of a pause that began at `pausedAt`, due `timeoutSeconds` later. */
export async function schedulePauseExpiry(
  queue: Queue,
  privacyRequestId: string,
  pausedAt: Date,
  timeoutSeconds: number,
): Promise<void> {
  await queue.sendAt(
    PAUSE_EXPIRY_QUEUE,
    { privacyRequestId } satisfies AdvanceJob,
    new Date(pausedAt.getTime() + timeoutSeconds * 1000 + PAUSE_EXPIRY_MARGIN_MS),
  );
}

/** Queues an "advance this request" job inside the caller's transaction. */
export async function enqueueAdvance(queue: Queue, tx: Queryable, privacyRequestId: string): Promise<void> {
  await enqueueAdvances(queue, tx, [privacyRequestId]);
}

/** One job per request, in one statement, inside the caller's transaction. */
export async function enqueueAdvances(
  queue: Queue,
  tx: Queryable,
  privacyRequestIds: readonly string[],
): Promise<void> {
  await queue.sendInTransaction<AdvanceJob>(
    tx,
    ADVANCE_QUEUE,
    privacyRequestIds.map((privacyRequestId) => ({
      data: { privacyRequestId },
      key: privacyRequestId,
    })),
  );
}
