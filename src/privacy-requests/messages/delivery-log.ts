// A subject message's delivery attempts on its request's log, so that the log alone shows what the
// subject was told and when (the recipient masked). The runtime hands this to the outbox worker.
import type { Queryable } from '../../db/database.ts';
import type { DeliveryAttempt } from '../../outbox/delivery-attempt.ts';
import { logRepository } from '../log-repository.ts';

export async function logDeliveryAttempt(tx: Queryable, attempt: DeliveryAttempt): Promise<void> {
  const { privacyRequestId, messageId, kind, recipient, error } = attempt;
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
