// A process's privacy-request worker: the pg-boss handlers of the advance and sweep queues, and the timer
// that asks for a sweep. The sweep moves requests paused longer than LETHE_PRIVACY_REQUEST_DELAY_TIMEOUT
// to `error`, cancels public requests still unverified after 24 hours and purges sealed identities older
// than LETHE_DEFAULT_TTL_SECONDS. Domain rules live in the executor; this module only wires them to the
// queue.
import { accessLinkRepository } from '../access-delivery/repository.ts';
import { CallbackSigning } from '../callbacks/signing.ts';
import { TargetOAuth } from '../callbacks/target-oauth.ts';
import type { JobResult } from 'pg-boss';
import { outboxRepository } from '../outbox/repository.ts';
import type { Services } from '../runtime/services.ts';
import { CallbackClient } from './callback-client.ts';
import { cancelUnverifiedRequests } from './cancel.ts';
import { PrivacyRequestExecutor } from './executor.ts';
import { ADVANCE_QUEUE, type AdvanceJob, enqueueAdvance, SWEEP_QUEUE } from './jobs.ts';
import { privacyRequestRepository as repo } from './repository.ts';

export const PAUSE_EXPIRED_REASON = 'paused request expired; resubmit it';
const SWEEP_BATCH = 100;
const ADVANCE_BATCH_SIZE = 2;

export interface RunningWorker {
  stop(): Promise<void>;
}

export async function startPrivacyRequestWorker(
  services: Services,
  onError: (error: Error) => void,
): Promise<RunningWorker> {
  const { boss } = services.queue;
  const { config } = services;
  const client = new CallbackClient(config);
  const oauth = new TargetOAuth(services);
  const executor = new PrivacyRequestExecutor(services, {
    client,
    oauth,
    signing: new CallbackSigning(services),
  });

  // pg-boss waits a polling interval after every fetch unless the fetch came back full; with batches of
  // two and burst-on-full, a loop keeps fetching while there is a backlog instead of taking one request
  // a second. Each job of a batch settles on its own.
  await boss.work<AdvanceJob>(
    ADVANCE_QUEUE,
    {
      pollingIntervalSeconds: config.jobPollingIntervalSeconds,
      localConcurrency: config.workerConcurrency,
      batchSize: ADVANCE_BATCH_SIZE,
      burstWhenBatchFull: true,
      perJobResults: true,
    },
    async (jobs) =>
      Promise.all(
        jobs.map(async (job): Promise<JobResult> => {
          try {
            await executor.advance(job.data.privacyRequestId);
            return { id: job.id, status: 'completed' };
          } catch (error) {
            onError(error instanceof Error ? error : new Error(String(error)));
            return { id: job.id, status: 'failed', output: { message: 'the request could not be advanced' } };
          }
        }),
      ),
  );
  await boss.work(SWEEP_QUEUE, { pollingIntervalSeconds: config.jobPollingIntervalSeconds }, async () =>
    sweep(services),
  );

  const requestSweep = () =>
    boss
      .send(SWEEP_QUEUE, {}, { singletonKey: 'sweep', singletonSeconds: config.sweepIntervalSeconds })
      .catch(onError);
  void requestSweep();
  const timer = setInterval(requestSweep, config.sweepIntervalSeconds * 1000);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await client.close();
      await oauth.close();
    },
  };
}

/**
 * One sweep pass: expire long pauses, queue again requests whose job was lost (it ran out of retries while
 * the store was down), purge expired identities, drop long-dead reply tokens.
 */
export async function sweep(services: Pick<Services, 'db' | 'config' | 'queue' | 'keyring'>): Promise<void> {
  const { db, config } = services;
  for (;;) {
    const expired = await db.transaction(async (tx) => {
      const rows = await repo.lockExpiredPauses(tx, config.privacyRequestDelayTimeoutSeconds, SWEEP_BATCH);
      for (const row of rows) {
        // Retrying the request calls the webhook that paused it again: it hands out a fresh token.
        const pausedStep = row.paused_step ?? row.next_step;
        await repo.transition(tx, row.id, 'paused', 'error', {
          error_reason: PAUSE_EXPIRED_REASON,
          paused_step: null,
          next_step: pausedStep,
        });
        await repo.reopenStep(tx, row.id, pausedStep);
        await repo.appendLog(tx, row.id, [
          {
            kind: 'transition',
            fromStatus: 'paused',
            toStatus: 'error',
            message: PAUSE_EXPIRED_REASON,
            error: PAUSE_EXPIRED_REASON,
          },
        ]);
      }
      return rows.length;
    });
    if (expired < SWEEP_BATCH) break;
  }
  await requeueStalled(services);
  await cancelUnverifiedRequests(services, config.unverifiedRequestSeconds);
  await repo.purgeExpiredIdentities(db);
  // Messages and download links carry personal data too: they go with the identities they were sent to.
  await outboxRepository.deleteOlderThan(db, config.defaultTtlSeconds);
  await accessLinkRepository.deleteExpired(db);
  await repo.deleteOldTokens(db);
}

const LIVE_JOB_STATES = new Set(['created', 'retry', 'active']);

async function requeueStalled(services: Pick<Services, 'db' | 'config' | 'queue'>): Promise<void> {
  const { db, config, queue } = services;
  for (const id of await repo.stalled(db, config.stalledRequestSeconds, SWEEP_BATCH)) {
    const jobs = await queue.boss.findJobs(ADVANCE_QUEUE, { key: id });
    if (jobs.some((job) => LIVE_JOB_STATES.has(job.state))) continue;
    await db.transaction(async (tx) => {
      await repo.appendLog(tx, id, [
        { kind: 'note', message: 'no worker job was left for this request; queued it again' },
      ]);
      await repo.touch(tx, id);
      await enqueueAdvance(queue, tx, id);
    });
  }
}
