// The outbox's delivery loop in a worker process: a pass every outboxPollIntervalSeconds while
// LETHE_SMTP_URL is set (without it the messages stay in the outbox, readable at GET /v1/outbox). Passes
// never overlap; several worker processes share the work through the claim's lease.
import type { Services } from '../services.ts';
import { type MailTransport, smtpTransport } from '../mail/transport.ts';
import type { RecordAttempt } from './delivery-attempt.ts';
import { deliverDueMessages } from './delivery.ts';

export interface RunningOutboxWorker {
  stop(): Promise<void>;
}

export function startOutboxWorker(
  services: Services,
  recordAttempt: RecordAttempt,
  onError: (error: Error) => void,
  transport: MailTransport | undefined = smtpTransport(services.config),
): RunningOutboxWorker {
  if (!transport) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= deliverDueMessages(services, transport, recordAttempt)
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  pass();
  const timer = setInterval(pass, services.config.outboxPollIntervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
