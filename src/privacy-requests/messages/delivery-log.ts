// A subject message's delivery attempts on its request's log, so that the log alone shows what the
// subject was told and when (the recipient masked); the "request received" message delivered is the
// request's acknowledgement. The runtime hands this to the outbox worker.
import type { Queryable } from '../../db/database.ts';
import type { DeliveryAttempt } from '../../outbox/delivery-attempt.ts';
import { clockRepository } from '../clock-repository.ts';
import { logRepository } from '../log-repository.ts';

export async function logDeliveryAttempt(tx: Queryable, attempt: DeliveryAttempt): Promise<void> {
  const { privacyRequestId, messageId, kind, recipient, error } = attempt;
  // The law's acknowledgement (CCPA §7021(a)) is the "received" message reaching the subject's server.
  if (error === undefined && kind === 'received')
    await clockRepository.acknowledge(tx, privacyRequestId, new Date());
  await logRepository.appendLog(tx, privacyRequestId, [
    {
      kind: 'note',
      attempt: attempt.attempt,
      error: error ?? null,
      message:
        error === undefined
          ? `message ${kind} sent to ${recipient}`
          : `message ${kind} to ${recipient} not sent; it will be retried`,
      details: { outbox_message_id: messageId, message_kind: kind, recipient },
    },
  ]);
}
