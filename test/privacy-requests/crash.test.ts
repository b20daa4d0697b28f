// A worker process SIGKILLed while a two_way webhook is being answered slowly: a new worker finishes the
// request, calling every webhook in order, skipping none, repeating the interrupted one with the same
// Idempotency-Key. The API runs in this process and `lethe worker` in a child.
// On PostgreSQL 15 too: what a killed worker leaves behind (its open transaction, its claims) is the
// server's to undo.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, type Receiver, startReceiver } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = process.execPath;

interface Child {
  process: ChildProcess;
  output: string[];
  /** Resolves with the line matching `pattern` once the child prints it. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
}

function startChild(args: string[], env: Record<string, string>): Child {
  const child = spawn(NODE, ['src/cli/main.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const listeners: (() => void)[] = [];
  const collect = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return {
    process: child,
    output,
    waitFor(pattern, timeoutMs = 120_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output.join(''));
          if (match) {
            clearTimeout(timer);
            resolve(match[0]);
          }
        };
        const timer = setTimeout(
          () => reject(new Error(`child did not print ${pattern}; output: ${output.join('')}`)),
          timeoutMs,
        );
        listeners.push(check);
        check();
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`child exited (${code}) before printing ${pattern}: ${output.join('')}`));
        });
      });
    },
  };
}

const exited = (child: Child) => child.process.exitCode !== null || child.process.signalCode !== null;

async function killHard(child: Child) {
  if (exited(child)) return;
  const gone = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGKILL');
  await gone;
}

async function stopGently(child: Child) {
  if (exited(child)) return;
  const gone = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGTERM');
  await gone;
}

describe('a worker killed mid-request', () => {
  let receiver: Receiver;
  let api: TestService | undefined;
  let baseUrl = '';
  let env: Record<string, string> = {};
  let token = '';
  const children: Child[] = [];

  async function startWorker(): Promise<Child> {
    const child = startChild(['worker'], env);
    children.push(child);
    await child.waitFor(/Lethe worker running/);
    return child;
  }

  async function call(method: string, urlPath: string, json?: unknown) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: {
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  }

  async function login(rootClient: { id: string; secret: string }) {
    const response = await fetch(`${baseUrl}/v1/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: rootClient.id,
        client_secret: rootClient.secret,
      }),
    });
    token = ((await response.json()) as { access_token: string }).access_token;
  }

  before(
    async () => {
      receiver = await startReceiver();
      const encryptionKey = randomBytes(32);
      const rootClient = { id: 'root-crash-test', secret: randomBytes(24).toString('base64url') };
      env = {
        LETHE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
        LETHE_ROOT_CLIENT_ID: rootClient.id,
        LETHE_ROOT_CLIENT_SECRET: rootClient.secret,
        LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
        LETHE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        LETHE_WEBHOOK_TIMEOUT_MS: '8000',
        LETHE_WORKER_HEARTBEAT_SECONDS: String(engineConfig.jobHeartbeatSeconds),
        LETHE_LOG_LEVEL: 'warn',
        PORT: '0',
      };
      api = await startTestService({ ...engineConfig, encryptionKey, rootClient }, { worker: false });
      baseUrl = api.url;
      env.DATABASE_URL = api.config.databaseUrl as string;
      await startWorker();
      await login(rootClient);
    },
    { timeout: 300_000 },
  );

  after(async () => {
    for (const child of children) await stopGently(child);
    await api?.stop();
    await receiver.close();
  });

  // Child processes on a busy machine: allow more than the suite's default per-test time.
  it('resumes on the webhook not yet confirmed and never skips one', { timeout: 300_000 }, async () => {
    const webhooks = [
      ['pre_execution', 'c1', 'one_way'],
      ['pre_execution', 'c2', 'two_way'],
      ['pre_execution', 'c3', 'one_way'],
      ['post_execution', 'c4', 'two_way'],
      ['post_execution', 'c5', 'one_way'],
    ] as const;
    // The first call to c2 is answered slowly: the worker is killed while it waits.
    let c2Calls = 0;
    receiver.on('/c2', () => {
      c2Calls += 1;
      return c2Calls === 1
        ? { delayMs: 6000, body: {} }
        : { body: { derived_identity: { phone_number: '+4915112345678' } } };
    });

    assert.equal((await call('PATCH', '/v1/dsr/policy', [{ name: 'crash', key: 'crash' }])).status, 200);
    for (const [, key] of webhooks) {
      await call('PATCH', '/v1/connection', [{ name: key, key, connection_type: 'https', access: 'read' }]);
      const secrets = await call('PUT', `/v1/connection/${key}`, {
        url: `${receiver.url}/${key}`,
        authorization: `Bearer ${key}`,
      });
      assert.equal(secrets.status, 200, secrets.text);
    }
    for (const timing of ['pre_execution', 'post_execution'] as const) {
      const list = webhooks
        .filter(([candidate]) => candidate === timing)
        .map(([, key, direction]) => ({ connection_config_key: key, direction, key, name: key }));
      assert.equal((await call('PUT', `/v1/policy/crash/webhook/${timing}`, list)).status, 200);
    }

    const created = await call('POST', '/v1/privacy-request', [
      { policy_key: 'crash', identity: { email: 'crash@example.com' } },
    ]);
    assert.equal(created.status, 200, created.text);
    const id = created.body.succeeded[0].id as string;

    await receiver.waitFor('/c2', 1, 30_000);
    const victim = children.at(-1) as Child;
    await killHard(victim);
    assert.equal(victim.process.signalCode, 'SIGKILL');

    await startWorker();

    const deadline = Date.now() + 90_000;
    let status = '';
    while (Date.now() < deadline) {
      status = (await call('GET', `/v1/privacy-request/${id}`)).body.status as string;
      if (status === 'complete' || status === 'error') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const log = await call('GET', `/v1/privacy-request/${id}/log`);
    assert.equal(status, 'complete', log.text);

    const calls = receiver.calls.filter((entry) => entry.body?.privacy_request_id === id);
    assert.deepEqual(
      calls.map((entry) => entry.path),
      ['/c1', '/c2', '/c2', '/c3', '/c4', '/c5'],
      'in order, the interrupted webhook repeated, none skipped',
    );
    const c2 = calls.filter((entry) => entry.path === '/c2');
    assert.equal(c2[0]?.headers['idempotency-key'], `${id}:c2:pre`);
    assert.equal(c2[1]?.headers['idempotency-key'], c2[0]?.headers['idempotency-key']);
    assert.equal(calls.at(-1)?.body.identity.phone_number, '+4915112345678', 'the repeat answer counted');
  });
});
