// Event-loop responsiveness under hostile input: /health is polled back to back on its own connection
// while the hostile work runs, and the slowest answer is what a blocked loop would show.
import type { TestService } from '../helpers/service.ts';

export async function slowestHealthWhile(service: TestService, work: () => Promise<void>): Promise<number> {
  let running = true;
  let slowest = 0;
  const poll = (async () => {
    while (running) {
      const started = performance.now();
      await fetch(`${service.url}/health`).then((answer) => answer.arrayBuffer());
      slowest = Math.max(slowest, performance.now() - started);
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await poll;
  }
  return slowest;
}
