// Tasks survive a kill -9: `lethe worker` runs in a child process and is SIGKILLed twice, once in the
// middle of the run that leads to the tasks (a slow pre-execution webhook) and once while the request
// waits for its task. After each restart the request has exactly one task (none lost, none doubled), and
// completing it sends the request on to its post-execution webhook and `complete` under a fresh worker.
// The API runs in this process.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, type Receiver, startReceiver } from '../privacy-requests/support.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface Worker {
  process: ChildProcess;
  output: string[];
}

function startWorkerProcess(env: Record<string, string>): Promise<Worker> {
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
        resolve({ process: child, output });
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('exit', (code) => reject(new Error(`worker exited (${code}): ${output.join('')}`)));
  });
}

async function stop(worker: Worker, signal: NodeJS.Signals) {
  if (worker.process.exitCode !== null || worker.process.signalCode !== null) return;
  const gone = new Promise((resolve) => worker.process.once('exit', resolve));
  worker.process.kill(signal);
  await gone;
}

describe('tasks across a worker killed with SIGKILL', () => {
  let receiver: Receiver;
  let api: TestService | undefined;
  let env: Record<string, string> = {};
  const workers: Worker[] = [];

  async function startWorker() {
    const worker = await startWorkerProcess(env);
    workers.push(worker);
    return worker;
  }

  before(
    async () => {
      receiver = await startReceiver();
      const encryptionKey = randomBytes(32);
      const rootClient = { id: 'root-task-crash', secret: randomBytes(24).toString('base64url') };
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
      env.DATABASE_URL = api.config.databaseUrl as string;
    },
    { timeout: 300_000 },
  );

  after(async () => {
    for (const worker of workers) await stop(worker, 'SIGTERM');
    await api?.stop();
    await receiver.close();
  });

  it(
    'neither loses the task nor makes two, and finishes after the restart',
    { timeout: 300_000 },
    async () => {
      const service = api as TestService;
      const token = await service.rootToken();
      const call = async (method: string, urlPath: string, json?: unknown) => {
        const answer = await service.call(method, urlPath, { token, json });
        assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.text}`);
        return answer.body;
      };
      const statusOf = async (id: string) =>
        (await call('GET', `/v1/privacy-request/${id}`)).status as string;
      const until = async (what: string, check: () => Promise<boolean>) => {
        const deadline = Date.now() + 90_000;
        while (!(await check())) {
          assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      };
      const taskRows = async (id: string) =>
        (
          await service.services.db.query<{ id: string; status: string }>(
            'SELECT id, status FROM tasks WHERE privacy_request_id = $1',
            [id],
          )
        ).rows;

      await call('PUT', '/v1/manual-system/ledger', {
        name: 'Paper ledger',
        actions: ['access'],
        fields: [{ name: 'page', label: 'Page' }],
        instructions: 'Find the subject in the ledger.',
      });
      await call('PATCH', '/v1/dsr/policy', [{ name: 'crash', key: 'crash', drp_action: 'access' }]);
      for (const key of ['slow_pre', 'post']) {
        await call('PATCH', '/v1/connection', [{ name: key, key, connection_type: 'https', access: 'read' }]);
        await call('PUT', `/v1/connection/${key}`, { url: `${receiver.url}/${key}` });
      }
      await call('PUT', '/v1/policy/crash/webhook/pre_execution', [
        { connection_config_key: 'slow_pre', direction: 'one_way', key: 'slow_pre', name: 'Slow' },
      ]);
      await call('PUT', '/v1/policy/crash/webhook/post_execution', [
        { connection_config_key: 'post', direction: 'one_way', key: 'post', name: 'Post' },
      ]);
      let preCalls = 0;
      receiver.on('/slow_pre', () => {
        preCalls += 1;
        return preCalls === 1 ? { delayMs: 6000 } : {};
      });

      await startWorker();
      const created = await call('POST', '/v1/privacy-request', [
        { policy_key: 'crash', identity: { email: 'crash@example.com' } },
      ]);
      const id = created.succeeded[0].id as string;

      // Killed in the run that leads to the task: nothing of it is committed yet.
      await receiver.waitFor('/slow_pre', 1, 30_000);
      await stop(workers.at(-1) as Worker, 'SIGKILL');
      assert.equal(await statusOf(id), 'in_processing');
      assert.deepEqual(await taskRows(id), []);

      await startWorker();
      await until('requires_input', async () => (await statusOf(id)) === 'requires_input');
      const [task, ...more] = await taskRows(id);
      assert.ok(task);
      assert.deepEqual(more, [], 'one task, not two');

      // Killed while the request waits for its task.
      await stop(workers.at(-1) as Worker, 'SIGKILL');
      await call('POST', `/v1/task/${task.id}/complete`, { data: { page: '17' } });
      assert.equal(await statusOf(id), 'in_processing');
      assert.equal(receiver.callsTo('/post').length, 0);

      await startWorker();
      await until('complete', async () => (await statusOf(id)) === 'complete');
      assert.equal(receiver.callsTo('/post').length, 1);
      assert.deepEqual(await taskRows(id), [{ id: task.id, status: 'done' }]);
      const log = (await call('GET', `/v1/privacy-request/${id}/log`)) as { message: string }[];
      assert.equal(log.filter((entry) => /^task created/.test(entry.message)).length, 1);
      const results = await call('GET', `/v1/privacy-request/${id}/access-results`);
      assert.deepEqual(results.manual_systems, [
        { key: 'ledger', name: 'Paper ledger', data: { page: '17' } },
      ]);
    },
  );
});
