// Event delivery survives a kill -9: `lethe worker` runs in a child process and is SIGKILLed while its
// receiver holds the first deliveries' calls open. A fresh worker delivers every event once its claim's
// lease runs out: none is lost, and a delivery sent twice comes with the same webhook-id and the same
// event (at least once, never a new event). The API runs in this process.
// On PostgreSQL 15 too: what a killed worker leaves behind (its open transaction, its claims) is the
// server's to undo.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, type Receiver, startReceiver } from '../privacy-requests/support.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['src/cli/main.ts', 'worker'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no worker start: ${output.join('')}`)), 120_000);
    const collect = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      if (/Lethe worker running/.test(output.join(''))) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${output.join('')}`)));
  });
}

async function stop(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await gone;
}

describe('event delivery across a worker killed with SIGKILL', () => {
  let receiver: Receiver;
  let api: TestService;
  let env: Record<string, string> = {};
  const workers: ChildProcess[] = [];

  before(async () => {
    receiver = await startReceiver();
    const encryptionKey = randomBytes(32);
    const rootClient = { id: 'root-event-crash', secret: randomBytes(24).toString('base64url') };
    env = {
      LETHE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
      LETHE_ROOT_CLIENT_ID: rootClient.id,
      LETHE_ROOT_CLIENT_SECRET: rootClient.secret,
      LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
      LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      // A call may take 3 s: a dead worker's claim is free again after 11 s.
      LETHE_WEBHOOK_TIMEOUT_MS: '3000',
      LETHE_REQUIRE_MANUAL_APPROVAL: 'true',
      LETHE_LOG_LEVEL: 'warn',
      PORT: '0',
    };
    api = await startTestService({ ...engineConfig, encryptionKey, rootClient, requireManualApproval: true });
    env.DATABASE_URL = api.config.databaseUrl as string;
  });
  after(async () => {
    for (const worker of workers) await stop(worker, 'SIGTERM');
    await api.stop();
    await receiver.close();
  });

  it('loses no event and repeats one only under its own webhook-id', { timeout: 300_000 }, async () => {
    const token = await api.rootToken();
    const created = await api.call('PUT', '/v1/event-subscription/crash', {
      token,
      json: { url: `${receiver.url}/crash`, events: ['privacy_request.received'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201, created.text);
    const secret = created.body.secret as string;
    // The first calls are held open past the kill (the receiver answers only after 2 s).
    let holding = true;
    receiver.on('/crash', () => (holding ? { delayMs: 2000 } : { status: 204 }));
    const submitted = await api.call('POST', '/v1/privacy-request', {
      token,
      json: [1, 2, 3, 4].map((n) => ({
        policy_key: 'default_access_policy',
        identity: { email: `crash${n}@example.com` },
      })),
    });
    assert.equal(submitted.body.succeeded.length, 4, submitted.text);

    const first = await startWorker(env);
    workers.push(first);
    await receiver.waitFor('/crash', 1, 60_000);
    await stop(first, 'SIGKILL');
    holding = false;
    const before = receiver.callsTo('/crash').length;
    assert.ok(before >= 1 && before <= 4, `${before} calls before the kill`);
    const { rows: unrecorded } = await api.services.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM event_deliveries WHERE state = 'pending' AND attempts > 0`,
    );
    assert.ok((unrecorded[0]?.count ?? 0) >= 1, 'the kill came mid-delivery: an attempt is unrecorded');

    workers.push(await startWorker(env));
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await api.services.db.query<{ state: string; count: number }>(
        `SELECT state, count(*)::int AS count FROM event_deliveries GROUP BY state`,
      );
      if (rows.length === 1 && rows[0]?.state === 'delivered' && rows[0].count === 4) break;
      assert.ok(Date.now() < deadline, `not all delivered: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    const calls = receiver.callsTo('/crash');
    const byWebhookId = new Map<string, Set<string>>();
    for (const call of calls) {
      new Webhook(secret).verify(call.raw, call.headers as Record<string, string>);
      const id = call.headers['webhook-id'] as string;
      byWebhookId.set(id, (byWebhookId.get(id) ?? new Set()).add(call.body.id));
    }
    assert.equal(byWebhookId.size, 4, 'every event arrived');
    for (const eventIds of byWebhookId.values()) assert.equal(eventIds.size, 1, 'a repeat is the same event');
    assert.deepEqual(
      new Set(calls.map((call) => call.body.subject)),
      new Set(submitted.body.succeeded.map((request: { id: string }) => request.id)),
    );
    assert.ok(calls.length > 4, 'the calls cut by the kill were made again');
  });
});
