// The events' delivery loop in a worker process: a pass every eventPollIntervalSeconds, never two at once
// in one process; several worker processes share the work through the claim's lease. The passes' claims,
// signatures and records run here; their HTTP calls run on a thread of their own (threaded-client.ts), off
// the event loop that also runs the privacy requests.
import { ThreadedCallbackClient } from '../callbacks/threaded-client.ts';
import type { Services } from '../services.ts';
import { deliverDueEvents } from './delivery.ts';

export interface RunningEventWorker {
  stop(): Promise<void>;
}

export function startEventWorker(services: Services, onError: (error: Error) => void): RunningEventWorker {
  const client = new ThreadedCallbackClient(services.config);
  let running: Promise<void> | undefined;
  const pass = () => {
    running ??= deliverDueEvents(services, client)
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  pass();
  const timer = setInterval(pass, services.config.eventPollIntervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await client.close();
    },
  };
}
