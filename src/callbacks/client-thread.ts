// The thread of a ThreadedCallbackClient (threaded-client.ts): a CallbackClient with the policy it was given,
// answering each posted call with its outcome. It holds no secret and no database connection: what it sends
// was signed before it got here.
import { parentPort, workerData } from 'node:worker_threads';
import { type CallbackPolicy, CallbackClient } from './client.ts';
import type { ThreadAnswer, ThreadCall } from './threaded-client.ts';

const port = parentPort;
if (!port) throw new Error('client-thread.ts runs only as a worker thread');
const client = new CallbackClient(workerData as CallbackPolicy);
port.on('message', (call: ThreadCall) => {
  void client.post(call.target, call.headers, call.body).then((outcome) => {
    port.postMessage({ id: call.id, outcome } satisfies ThreadAnswer);
  });
});
