// The webhook client on a thread of its own (src/callbacks/threaded-client.ts), as the events worker uses
// it: the same outcomes as CallbackClient, its calls made while the process's event loop is busy, a thread
// that stops when idle and starts again at the next call, and calls cut by a stop ending as failures worth
// another try (the delivery is made again later under its webhook-id).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { CallbackClient } from '../../src/callbacks/client.ts';
import { ThreadedCallbackClient } from '../../src/callbacks/threaded-client.ts';
import { type Receiver, startReceiver } from '../privacy-requests/support.ts';

const POLICY = { allowInsecureWebhooks: true, webhookAllowedHosts: ['127.0.0.1'], webhookTimeoutMs: 5000 };

/**
 * A receiver in a process of its own, so that it answers while this test's event loop is blocked: it
 * notes when each POST arrived (its wall clock, as Date.now() here reads the same clock) and answers GET
 * with those times.
 */
async function startOutOfProcessReceiver(): Promise<{
  url: string;
  arrivals(): Promise<number[]>;
  child: ChildProcess;
}> {
  const source = `
    const arrivals = [];
    const server = require('node:http').createServer((request, response) => {
      if (request.method === 'GET') return response.end(JSON.stringify(arrivals));
      arrivals.push(Date.now());
      request.resume();
      request.on('end', () => response.end('{}'));
    });
    server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${chunk.toString().trim()}`;
  return {
    url,
    child,
    arrivals: async () => (await (await fetch(url)).json()) as number[],
  };
}

/** Blocks this thread's event loop for `ms` without yielding (as a busy API would hold it). */
function blockEventLoop(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe('the threaded callback client', () => {
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  it('answers what the client on the event loop answers: success, a refusal, a Retry-After', async () => {
    receiver.on('/ok', () => ({ body: { received: true } }));
    receiver.on('/busy', () => ({ status: 503, headers: { 'retry-after': '7' } }));
    const threaded = new ThreadedCallbackClient(POLICY);
    const direct = new CallbackClient(POLICY);
    try {
      for (const client of [threaded, direct]) {
        const ok = await client.post(`${receiver.url}/ok`, { 'webhook-id': 'msg_1' }, '{"n":1}');
        assert.equal(ok.ok, true, ok.error);
        assert.equal(ok.status, 200);
        assert.deepEqual(JSON.parse(ok.body ?? ''), { received: true });
        const busy = await client.post(`${receiver.url}/busy`, {}, '{}');
        assert.deepEqual(
          [busy.ok, busy.status, busy.retryable, busy.retryAfterSeconds],
          [false, 503, true, 7],
        );
        const refused = await client.post('http://10.0.0.1/hook', {}, '{}');
        assert.deepEqual([refused.ok, refused.kind, refused.retryable], [false, 'refused', false]);
      }
      const calls = receiver.callsTo('/ok');
      assert.equal(calls.length, 2);
      assert.deepEqual(
        calls.map((call) => [call.headers['webhook-id'], call.raw]),
        [
          ['msg_1', '{"n":1}'],
          ['msg_1', '{"n":1}'],
        ],
        'the thread sends the headers and body it was given',
      );
    } finally {
      await threaded.close();
      await direct.close();
    }
  });

  it('makes its calls while the event loop that asked for them is blocked', async () => {
    const outside = await startOutOfProcessReceiver();
    const threaded = new ThreadedCallbackClient(POLICY);
    try {
      assert.equal((await threaded.post(`${outside.url}/warm`, {}, '{}')).ok, true, 'the thread is up');
      const blockedAt = Date.now();
      const call = threaded.post(`${outside.url}/while-blocked`, {}, '{}');
      blockEventLoop(2000);
      const unblockedAt = Date.now();
      assert.equal((await call).ok, true);
      const arrivals = await outside.arrivals();
      assert.equal(arrivals.length, 2);
      const arrived = arrivals[1] as number;
      assert.ok(
        arrived >= blockedAt && arrived < unblockedAt,
        `the call arrived ${arrived - blockedAt} ms after the loop was blocked, which lasted ${unblockedAt - blockedAt} ms`,
      );
    } finally {
      await threaded.close();
      outside.child.kill();
    }
  });

  it('stops its thread when idle and starts one again at the next call', async () => {
    const threaded = new ThreadedCallbackClient(POLICY, { idleMs: 50 });
    try {
      assert.equal(threaded.running, false, 'no thread before the first call');
      assert.equal((await threaded.post(`${receiver.url}/first`, {}, '{}')).ok, true);
      assert.equal(threaded.running, true);
      const deadline = performance.now() + 10_000;
      while (threaded.running && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(threaded.running, false, 'the idle thread stopped');
      assert.equal((await threaded.post(`${receiver.url}/second`, {}, '{}')).ok, true);
      assert.equal(threaded.running, true);
      assert.equal(receiver.callsTo('/second').length, 1);
    } finally {
      await threaded.close();
    }
  });

  it('ends a call cut by a stop as a network error worth another try', async () => {
    receiver.on('/slow', () => ({ delayMs: 3000 }));
    const threaded = new ThreadedCallbackClient(POLICY);
    const call = threaded.post(`${receiver.url}/slow`, {}, '{}');
    await receiver.waitFor('/slow');
    await threaded.close();
    const outcome = await call;
    assert.deepEqual(
      [outcome.ok, outcome.kind, outcome.retryable, outcome.status],
      [false, 'network_error', true, undefined],
    );
    assert.match(outcome.error ?? '', /thread stopped/);
    assert.equal(threaded.running, false);
  });
});
