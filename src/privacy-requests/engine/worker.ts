// A process's privacy-request worker: the queue handlers of the advance, pause-expiry and sweep queues,
// and the timer that asks for a sweep. A pause's own job moves it to `error` once
// LETHE_PRIVACY_REQUEST_DELAY_TIMEOUT has passed; the sweep does the same for any it missed, cancels public
// requests still unverified after 24 hours and purges sealed identities older than
// LETHE_DEFAULT_TTL_SECONDS. Domain rules live in the executor; this module only wires them to the queue.
import { sweepRepository } from '../sweep-repository.ts';
import { CallbackClient } from '../../callbacks/client.ts';
import { CallbackDelivery } from '../../callbacks/delivery.ts';
import { CallbackSigning } from '../../callbacks/signing.ts';
import { TargetOAuth } from '../../callbacks/target-oauth.ts';
import type { Queryable } from '../../db/database.ts';
import { outboxRepository } from '../../outbox/repository.ts';
import type { Services } from '../../services.ts';
import { cancelUnverifiedRequests } from '../cancel.ts';
import { hooksOf } from '../lifecycle.ts';
import { PrivacyRequestExecutor } from './executor.ts';
import { ADVANCE_QUEUE, type AdvanceJob, enqueueAdvance, PAUSE_EXPIRY_QUEUE, SWEEP_QUEUE } from '../jobs.ts';
import { logRepository } from '../log-repository.ts';
import { replyTokenRepository } from '../reply-token-repository.ts';
import { privacyRequestRepository as repo, type RequestRow } from '../repository.ts';
import { stepRepository } from '../step-repository.ts';

export const PAUSE_EXPIRED_REASON = 'paused request expired; resubmit it';
const SWEEP_BATCH = 100;
const PAUSE_EXPIRY_BATCH_SIZE = 10;
const ADVANCE_BATCH_SIZE = 2;

export interface RunningWorker {
  stop(): Promise<void>;
}

export async function startPrivacyRequestWorker(
  services: Services,
  onError: (error: Error) => void,
): Promise<RunningWorker> {
  const { config, queue } = services;
  const delivery = new CallbackDelivery(services.keyring, {
    client: new CallbackClient(config),
    oauth: new TargetOAuth(services),
    signing: new CallbackSigning(services),
  });
  const executor = new PrivacyRequestExecutor(services, delivery);

  // Batches of two keep a loop fetching while there is a backlog (see Queue.workEach).
  await queue.workEach<AdvanceJob>(
    ADVANCE_QUEUE,
    {
      pollingIntervalSeconds: config.jobPollingIntervalSeconds,
      localConcurrency: config.workerConcurrency,
      batchSize: ADVANCE_BATCH_SIZE,
      failureMessage: 'the request could not be advanced',
    },
    (job) => executor.advance(job.privacyRequestId),
    onError,
  );
  await queue.work(SWEEP_QUEUE, { pollingIntervalSeconds: config.jobPollingIntervalSeconds }, async () =>
    sweep(services),
  );
  await queue.workEach<AdvanceJob>(
    PAUSE_EXPIRY_QUEUE,
    {
      pollingIntervalSeconds: config.jobPollingIntervalSeconds,
      localConcurrency: 1,
      batchSize: PAUSE_EXPIRY_BATCH_SIZE,
      failureMessage: 'the pause could not be expired',
    },
    (job) => expirePause(services, job.privacyRequestId),
    onError,
  );

  const requestSweep = () => queue.sendOnce(SWEEP_QUEUE, 'sweep', config.sweepIntervalSeconds).catch(onError);
  void requestSweep();
  const timer = setInterval(requestSweep, config.sweepIntervalSeconds * 1000);
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await delivery.close();
    },
  };
}

/**
 * One sweep pass: expire long pauses, queue again requests whose job was lost (it ran out of retries while
 * the store was down), purge expired identities, drop old messages and long-dead reply tokens; then the
 * features' sweep hooks (expired download links, reminders of overdue tasks).
 */
export async function sweep(services: Pick<Services, 'db' | 'config' | 'queue' | 'keyring'>): Promise<void> {
  const { db, config } = services;
  for (;;) {
    const expired = await db.transaction(async (tx) => {
      const rows = await sweepRepository.lockExpiredPauses(
        tx,
        config.privacyRequestDelayTimeoutSeconds,
        SWEEP_BATCH,
      );
      for (const row of rows) await moveExpiredPauseToError(tx, row);
      return rows.length;
    });
    if (expired < SWEEP_BATCH) break;
  }
  await requeueStalled(services);
  await cancelUnverifiedRequests(services, config.unverifiedRequestSeconds);
  await sweepRepository.purgeExpiredIdentities(db);
  // Messages and download links carry personal data too: they go with the identities they were sent to.
  await outboxRepository.deleteOlderThan(db, config.defaultTtlSeconds);
  await replyTokenRepository.deleteOldTokens(db);
  for (const hook of hooksOf('sweep')) await hook(services);
}

/**
 * The job scheduled when a request paused: moves it to `error` if it is still paused and the pause has
 * expired. A request resumed meanwhile, or paused again later (that pause has its own job), is left alone.
 */
export async function expirePause(services: Pick<Services, 'db' | 'config'>, id: string): Promise<void> {
  await services.db.transaction(async (tx) => {
    const row = await sweepRepository.lockExpiredPause(
      tx,
      id,
      services.config.privacyRequestDelayTimeoutSeconds,
    );
    if (row) await moveExpiredPauseToError(tx, row);
  });
}

async function moveExpiredPauseToError(tx: Queryable, row: RequestRow): Promise<void> {
  // Retrying the request calls the webhook that paused it again: it hands out a fresh token.
  const pausedStep = row.paused_step ?? row.next_step;
  await repo.transition(tx, {
    id: row.id,
    from: 'paused',
    to: 'error',
    changes: {
      error_reason: PAUSE_EXPIRED_REASON,
      finished_processing_at: new Date(),
      paused_step: null,
      next_step: pausedStep,
    },
    message: PAUSE_EXPIRED_REASON,
    error: PAUSE_EXPIRED_REASON,
  });
  await stepRepository.reopenStep(tx, row.id, pausedStep);
}

async function requeueStalled(services: Pick<Services, 'db' | 'config' | 'queue'>): Promise<void> {
  const { db, config, queue } = services;
  for (const id of await sweepRepository.stalled(db, config.stalledRequestSeconds, SWEEP_BATCH)) {
    if (await queue.hasLiveJob(ADVANCE_QUEUE, id)) continue;
    await db.transaction(async (tx) => {
      await logRepository.appendLog(tx, id, [
        { kind: 'note', message: 'no worker job was left for this request; queued it again' },
      ]);
      await sweepRepository.touch(tx, id);
      await enqueueAdvance(queue, tx, id);
    });
  }
}
