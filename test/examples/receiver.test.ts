// examples/receiver.mjs, run as the README runs it (a child process, configured by its environment): it
// halts a two_way call and resumes the request at LETHE_URL, and a resume that fails (nothing listening
// yet, then a 503) is tried again until it is delivered, without the receiver stopping.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const RECEIVER = path.resolve(import.meta.dirname, '../../examples/receiver.mjs');

interface ResumeCall {
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/** A port that was free a moment ago (nothing listens on it now). */
async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function startReceiver(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: string[] }> {
  const output: string[] = [];
  const child = spawn(process.execPath, [RECEIVER], {
    env: { ...process.env, RESUME_AFTER_MS: '10', RETRY_AFTER_MS: '100', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  const deadline = Date.now() + 10_000;
  while (!output.join('').includes('receiver listening')) {
    if (Date.now() > deadline || child.exitCode !== null)
      assert.fail(`receiver did not start: ${output.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, output };
}

describe('examples/receiver.mjs', () => {
  const children: ChildProcess[] = [];
  let lethe: Server | undefined;
  after(async () => {
    for (const child of children) child.kill();
    lethe?.closeAllConnections();
    await new Promise((resolve) => (lethe ? lethe.close(resolve) : resolve(undefined)));
  });

  it('retries a resume that fails until Lethe answers, and keeps running', async () => {
    const lethePort = await freePort();
    const receiverPort = await freePort();
    const { child, output } = await startReceiver({
      RECEIVER_PORT: String(receiverPort),
      LETHE_URL: `http://127.0.0.1:${lethePort}/`,
      DERIVED_PHONE: '+14155550123',
    });
    children.push(child);

    const halt = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'reply-to': '/privacy-request/pri_1/resume',
        'reply-to-token': 'token-of-pri_1',
      },
      body: JSON.stringify({ callback_type: 'pre', direction: 'two_way', privacy_request_id: 'pri_1' }),
    });
    assert.equal(halt.status, 200);
    assert.deepEqual(await halt.json(), { halt: true });

    // Nothing listens on LETHE_URL yet: the first resume fails to connect. Then Lethe comes up, answers
    // 503 once, then 200.
    const firstFailure = Date.now() + 10_000;
    while (!output.join('').includes('trying again')) {
      assert.ok(Date.now() < firstFailure, `no failed resume reported: ${output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.match(output.join(''), /ECONNREFUSED/);
    const calls: ResumeCall[] = [];
    lethe = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        calls.push({
          path: request.url ?? '',
          authorization: request.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
        });
        if (calls.length === 1) response.writeHead(503).end('{"detail": "unavailable"}');
        else
          response.writeHead(200, { 'content-type': 'application/json' }).end('{"status": "in_processing"}');
      });
    });
    lethe.listen(lethePort, '127.0.0.1');
    await once(lethe, 'listening');

    const delivered = Date.now() + 15_000;
    while (calls.length < 2) {
      assert.ok(Date.now() < delivered, `resume not delivered: ${output.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const call of calls) {
      assert.equal(call.path, '/privacy-request/pri_1/resume');
      assert.equal(call.authorization, 'Bearer token-of-pri_1');
      assert.deepEqual(call.body, { derived_identity: { phone_number: '+14155550123' } });
    }
    const settled = Date.now() + 5_000;
    while (!output.join('').includes(': 200 ')) {
      assert.ok(Date.now() < settled, output.join(''));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(child.exitCode, null, 'the receiver still runs');

    // It still answers calls afterwards, and a body that is not JSON is refused without a crash.
    const garbage = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, { method: 'POST', body: '{' });
    assert.equal(garbage.status, 400);
    const oneWay = await fetch(`http://127.0.0.1:${receiverPort}/hooks`, { method: 'POST', body: '{}' });
    assert.equal(oneWay.status, 200);
    assert.equal(child.exitCode, null);
  });

  it('gives a final 4xx answer no retry and says so', async () => {
    let calls = 0;
    const refusing = createServer((_request, response) => {
      calls += 1;
      response.writeHead(409, { 'content-type': 'application/json' }).end('{"detail": "token already used"}');
    });
    refusing.listen(0, '127.0.0.1');
    await once(refusing, 'listening');
    const receiverPort = await freePort();
    const { child, output } = await startReceiver({
      RECEIVER_PORT: String(receiverPort),
      LETHE_URL: `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`,
    });
    children.push(child);
    await fetch(`http://127.0.0.1:${receiverPort}/hooks`, {
      method: 'POST',
      headers: { 'reply-to': '/privacy-request/pri_2/resume', 'reply-to-token': 'spent' },
      body: '{}',
    });
    const deadline = Date.now() + 10_000;
    while (!output.join('').includes('409')) {
      assert.ok(Date.now() < deadline, output.join(''));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(calls, 1);
    assert.match(output.join(''), /token already used/);
    refusing.closeAllConnections();
    await new Promise((resolve) => refusing.close(resolve));
  });
});
