// `lethe task list|complete|skip` as real child processes on the store a running Lethe (API and worker)
// uses: the CLI lists the tasks the engine made, completes one with data and skips another with a reason,
// and the worker then sends both requests on to `complete`. Bad arguments exit 2; a done task, 1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, logOf, submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, tasksOf } from './support.ts';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('lethe task', () => {
  let service: TestService;
  const encryptionKey = randomBytes(32);

  before(async () => {
    service = await startTestService({ ...engineConfig, encryptionKey }, { worker: true });
  });
  after(() => service.stop());

  function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      DATABASE_URL: service.config.databaseUrl,
      LETHE_ENCRYPTION_KEY: encryptionKey.toString('hex'),
      LETHE_DATA_DIR: service.config.dataDir,
      LETHE_LOG_LEVEL: 'silent',
    };
    const child = spawn(process.execPath, [CLI, 'task', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  }

  it('lists, completes and skips tasks; the requests then go on', { timeout: 300_000 }, async () => {
    await putManualSystem(service, 'sheet', { name: 'Shared spreadsheet' });
    const token = await service.rootToken();
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'cli access', key: 'cli_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const first = await submit(service, { policy_key: 'cli_access', identity: { email: 'ed@example.com' } });
    const second = await submit(service, { policy_key: 'cli_access', identity: { email: 'fa@example.com' } });
    await waitForStatus(service, first.id, 'requires_input');
    await waitForStatus(service, second.id, 'requires_input');
    const [firstTask] = await tasksOf(service, first.id);
    const [secondTask] = await tasksOf(service, second.id);

    const listed = await cli(['list', '--status', 'open']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID\s+REQUEST\s+SYSTEM\s+ACTION\s+STATUS\s+ASSIGNEE\s+DUE_AT\n/);
    assert.ok(listed.stdout.includes(firstTask.id) && listed.stdout.includes(secondTask.id));
    const json = JSON.parse((await cli(['list', '--json'])).stdout);
    assert.equal(json.total, 2);

    const unknown = await cli(['complete', firstTask.id, '--data', '{"ssn":"1"}']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown field\(s\) ssn/);
    const completed = await cli(['complete', firstTask.id, '--data', '{"customer_number":"K-7"}']);
    assert.equal(completed.code, 0, completed.stderr);
    assert.equal(completed.stdout, `done ${firstTask.id} (access in sheet)\n`);
    const again = await cli(['complete', firstTask.id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already done/);

    const noReason = await cli(['skip', secondTask.id]);
    assert.equal(noReason.code, 2);
    const skipped = await cli(['skip', secondTask.id, '--reason', 'not a customer', '--json']);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.equal(JSON.parse(skipped.stdout).skip_reason, 'not a customer');
    assert.equal((await cli(['list', '--status', 'stuck'])).code, 2);

    await waitForStatus(service, first.id, 'complete');
    await waitForStatus(service, second.id, 'complete');
    assert.ok(
      (await logOf(service, first.id)).some(
        (entry) => entry.message === 'access task in Shared spreadsheet done by cli',
      ),
    );
    const audit = await service.call('GET', '/v1/audit-log?action=task&actor=client:cli', { token });
    assert.deepEqual(audit.body.items.map((entry: { action: string }) => entry.action).sort(), [
      'task.complete',
      'task.skip',
    ]);
  });
});
