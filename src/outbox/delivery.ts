// Delivers due outbox messages over SMTP. Each attempt is recorded on the request's log with the
// recipient masked; a failure waits twice as long as the one before (1 s, 2 s, 4 s ... up to
// outboxRetryMaxSeconds) and the message stays pending, so nothing is lost while the mail server is
// down. Errors keep the transport's code, never its text (which may quote the recipient).
import { mailFailureCodes, type MailTransport } from '../mail/transport.ts';
import { clockRepository } from '../privacy-requests/clock-repository.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import type { Services } from '../services.ts';
import { openContent, purgedContent, sealContent } from './content.ts';
import { maskEmail } from './recipient-mask.ts';
import { type MessageRow, outboxRepository as repo } from './repository.ts';

/** How long a claimed message is hidden from other workers: longer than any send may take. */
const LEASE_SECONDS = 120;
const BATCH = 20;

export function retryDelaySeconds(attempts: number, maxSeconds: number): number {
  return Math.min(maxSeconds, 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

function failureText(error: unknown): string {
  const codes = mailFailureCodes(error);
  return `delivery failed${codes.length ? ` (${codes.join(', ')})` : ''}`;
}

/**
 * One delivery pass: sends every message due at `at` (default now), batch after batch. Answers how many
 * were sent and how many failed this time.
 */
export async function deliverDueMessages(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  transport: MailTransport,
  at: Date = new Date(),
): Promise<{ sent: number; failed: number }> {
  const tally = { sent: 0, failed: 0 };
  for (;;) {
    const due = await repo.claimDue(services.db, at, LEASE_SECONDS, BATCH);
    for (const message of due) {
      if (await deliverOne(services, transport, message, at)) tally.sent += 1;
      else tally.failed += 1;
    }
    if (due.length < BATCH) return tally;
  }
}

async function deliverOne(
  services: Pick<Services, 'db' | 'keyring' | 'config'>,
  transport: MailTransport,
  message: MessageRow,
  at: Date,
): Promise<boolean> {
  const { db, config, keyring } = services;
  const content = openContent(keyring, message.id, message.content_sealed);
  let error: string | undefined;
  try {
    // A message claimed again after its delivery was recorded (never expected) has no body left to send.
    if (content.text === null || content.html === null) throw new Error('the message was already delivered');
    await transport.send({ from: config.smtpFrom, ...content, text: content.text, html: content.html });
  } catch (failure) {
    error = failureText(failure);
  }
  const recipient = maskEmail(content.to);
  await db.transaction(async (tx) => {
    // Delivered: the codes and links in the bodies have done their work and are purged from the outbox.
    if (error === undefined) {
      await repo.markSent(tx, message.id, sealContent(keyring, message.id, purgedContent(content)));
      // The law's acknowledgement (CCPA §7021(a)) is the "received" message reaching the subject's server.
      if (message.kind === 'received' && message.privacy_request_id)
        await clockRepository.acknowledge(tx, message.privacy_request_id, new Date());
    } else
      await repo.scheduleRetry(
        tx,
        message.id,
        at,
        retryDelaySeconds(message.attempts, config.outboxRetryMaxSeconds),
        error,
      );
    if (message.privacy_request_id) {
      await logRepository.appendLog(tx, message.privacy_request_id, [
        {
          kind: 'note',
          attempt: message.attempts,
          error: error ?? null,
          message:
            error === undefined
              ? `message ${message.kind} sent to ${recipient}`
              : `message ${message.kind} to ${recipient} not sent; it will be retried`,
          details: { outbox_message_id: message.id, message_kind: message.kind, recipient },
        },
      ]);
    }
  });
  return error === undefined;
}
