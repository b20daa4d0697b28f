// `lethe task list|complete|skip|assign|invite` as real child processes on the store a running Lethe (API
// and worker) uses: the CLI lists the tasks the engine made, completes one with data and skips another
// with a reason, and the worker then sends both requests on to `complete`. Bad arguments exit 2; a done
// task, 1. Assigning and inviting as the operator `--as` (or LETHE_OPERATOR) names is audited as that
// operator, within that operator's roles; an assignee who does not exist changes nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, logOf, submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from './support.ts';

const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('lethe task', () => {
  let service: TestService;
  const encryptionKey = randomBytes(32);

  before(async () => {
    service = await startTestService({ ...engineConfig, encryptionKey }, { worker: true });
  });
  after(() => service.stop());

  function cli(
    args: string[],
    extraEnv: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const env: Record<string, string | undefined> = {
      ...process.env,
      ...extraEnv,
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

  it('assigns and invites as the operator --as names, within their roles', { timeout: 300_000 }, async () => {
    await putManualSystem(service, 'binder', { name: 'Paper binder' });
    await signIn(service, 'clara', ['contributor']);
    await signIn(service, 'vera', ['viewer']);
    const token = await service.rootToken();
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'binder access', key: 'binder_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const request = await submit(service, {
      policy_key: 'binder_access',
      identity: { email: 'hu@example.com' },
    });
    await waitForStatus(service, request.id, 'requires_input');
    const task = (await tasksOf(service, request.id)).find((candidate) => candidate.system === 'binder');
    const audited = async (actor: string) =>
      (await service.call('GET', `/v1/audit-log?action=task&actor=${actor}`, { token })).body.items.map(
        (entry: { action: string }) => entry.action,
      );

    const nobody = await cli(['assign', task.id, '--to', 'nobody-here', '--as', 'clara']);
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /assignee: no operator named "nobody-here"/);
    assert.equal((await tasksOf(service, request.id)).find((t) => t.id === task.id).assignee, null);
    assert.deepEqual(await audited('user:clara'), [], 'nothing stored');

    const ghost = await cli(['assign', task.id, '--to', 'vera', '--as', 'ghost']);
    assert.equal(ghost.code, 2);
    assert.match(ghost.stderr, /--as: no operator named "ghost"/);
    const viewer = await cli(['assign', task.id, '--to', 'vera', '--as', 'vera']);
    assert.equal(viewer.code, 2);
    assert.match(viewer.stderr, /"vera" \(viewer\) may not do this: it needs task:update/);
    assert.equal((await cli(['assign', task.id])).code, 2, 'an assignment needs --to');

    const assigned = await cli(['assign', task.id, '--to', 'vera', '--as', 'clara']);
    assert.equal(assigned.code, 0, assigned.stderr);
    assert.equal(assigned.stdout, `assigned ${task.id} (access in binder) to vera\n`);
    const invited = await cli(['invite', task.id, '--email', 'records@vendor.example'], {
      LETHE_OPERATOR: 'clara',
    });
    assert.equal(invited.code, 0, invited.stderr);
    assert.match(
      invited.stdout,
      new RegExp(`^invited a respondent to task ${task.id}; the link expires at `),
    );

    assert.deepEqual((await audited('user:clara')).sort(), ['task.assign', 'task.invite']);
    const log = await logOf(service, request.id);
    assert.ok(log.some((entry) => entry.message === 'access task in Paper binder assigned to vera by clara'));
  });
});
