// Tasks in the engine, end to end over real HTTP, a real worker and a real webhook receiver: a request
// whose action a manual system lists waits in requires_input with one task per system (made with the move,
// logged), its post-execution webhook is not called while a task is open, and closing the last task sends
// it on by itself (post webhook, then complete). Access data lands in the access package under the
// system's name; an erasure confirmation says who and when; a skip needs a reason; bad input is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from './support.ts';

describe('tasks in the engine', () => {
  let service: TestService;
  let receiver: Receiver;
  let clara: string;
  let viewer: string;

  before(async () => {
    receiver = await startReceiver();
    service = await startTestService({ ...engineConfig, taskMarginDays: 5 }, { worker: true });
    clara = await signIn(service, 'clara', ['contributor']);
    viewer = await signIn(service, 'vera', ['viewer']);
    await putManualSystem(service, 'crm', { name: 'Old CRM', assignee: 'clara' });
    await putManualSystem(service, 'archive', {
      name: 'Paper archive',
      actions: ['erasure'],
      fields: [{ name: 'shelf', label: 'Shelf' }],
    });
    await policyWithWebhooks(
      service,
      receiver,
      'manual_access',
      [],
      [{ key: 'after', direction: 'one_way' }],
    );
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('waits for the task, then goes on by itself with the data in the access package', async () => {
    const created = await submit(service, {
      policy_key: 'manual_access',
      identity: { email: 'ada@example.com' },
    });
    const waiting = await waitForStatus(service, created.id, 'requires_input');
    const tasks = await tasksOf(service, created.id);
    assert.equal(tasks.length, 1, 'one task: the erasure-only system is not asked for an access request');
    const [task] = tasks;
    assert.equal(task.system, 'crm');
    assert.equal(task.system_name, 'Old CRM');
    assert.equal(task.action, 'access');
    assert.equal(task.status, 'open');
    assert.equal(task.assignee, 'clara');
    assert.equal(task.overdue, false);
    // 5 days before the earlier of the request's due date (the end of its last local day) and the policy's
    // 30 days from receipt (docs/human-steps.md).
    const policyDue = new Date(waiting.requested_at).getTime() + 30 * 86_400_000;
    const due = Math.min(new Date(waiting.due_date).getTime(), policyDue) - 5 * 86_400_000;
    assert.ok(
      Math.abs(new Date(task.due_at).getTime() - due) < 2000,
      `${task.due_at} vs ${waiting.due_date}`,
    );

    // Nothing goes on while the task is open.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.callsTo('/after').length, 0);
    assert.equal((await waitForStatus(service, created.id, 'requires_input')).status, 'requires_input');

    const unknown = await service.call('POST', `/v1/task/${task.id}/complete`, {
      token: clara,
      json: { data: { customer_number: 'C-1', shoe_size: '42', colour: 'red' } },
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, /shoe_size, colour/);
    const byViewer = await service.call('POST', `/v1/task/${task.id}/complete`, { token: viewer, json: {} });
    assert.equal(byViewer.status, 403);
    assert.equal((await tasksOf(service, created.id))[0].status, 'open');

    const done = await service.call('POST', `/v1/task/${task.id}/complete`, {
      token: clara,
      json: { data: { customer_number: 'C-1042', notes: 'two orders in 2019' } },
    });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.status, 'done');
    assert.equal(done.body.done_by, 'clara');
    const again = await service.call('POST', `/v1/task/${task.id}/complete`, { token: clara, json: {} });
    assert.equal(again.status, 409);

    await waitForStatus(service, created.id, 'complete');
    assert.equal((await receiver.waitFor('/after')).length, 1);
    const results = await service.call('GET', `/v1/privacy-request/${created.id}/access-results`, {
      token: await service.rootToken(),
    });
    assert.equal(results.status, 200, results.text);
    assert.deepEqual(results.body.manual_systems, [
      { key: 'crm', name: 'Old CRM', data: { customer_number: 'C-1042', notes: 'two orders in 2019' } },
    ]);
    const { rows } = await service.services.db.query<{ data: string }>(
      'SELECT encode(data_sealed, $2) AS data FROM tasks WHERE id = $1',
      [task.id, 'escape'],
    );
    assert.ok(!rows[0]?.data.includes('C-1042'), 'task data is sealed at rest');

    const log = await logOf(service, created.id);
    const said = log.map((entry) => `${entry.from_status ?? ''}>${entry.to_status ?? ''} ${entry.message}`);
    const at = (pattern: RegExp) => said.findIndex((line) => pattern.test(line));
    assert.ok(at(/^in_processing>requires_input waiting for 1 manual task/) >= 0, said.join('\n'));
    assert.ok(at(/task created: access in Old CRM/) > at(/^in_processing>requires_input/));
    assert.ok(at(/access task in Old CRM done by clara/) > at(/task created/));
    assert.ok(at(/^requires_input>in_processing every task done/) > at(/done by clara/));
    assert.ok(at(/^in_processing>complete/) > at(/^requires_input>in_processing/));
  });

  it('records an erasure confirmation with who and when, and refuses a skip without a reason', async () => {
    const token = await service.rootToken();
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'manual erasure', key: 'manual_erasure', drp_action: 'erasure' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const first = await submit(service, {
      policy_key: 'manual_erasure',
      identity: { email: 'bo@example.com' },
    });
    const second = await submit(service, {
      policy_key: 'manual_erasure',
      identity: { email: 'cy@example.com' },
    });
    await waitForStatus(service, first.id, 'requires_input');
    await waitForStatus(service, second.id, 'requires_input');
    const [erasure] = await tasksOf(service, first.id);
    assert.equal(erasure.system, 'archive');
    const before = Date.now();
    const confirmed = await service.call('POST', `/v1/task/${erasure.id}/complete`, { token: clara });
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.body.done_by, 'clara');
    assert.ok(Math.abs(new Date(confirmed.body.done_at).getTime() - before) < 5000);
    await waitForStatus(service, first.id, 'complete');
    const log = await logOf(service, first.id);
    assert.ok(log.some((entry) => entry.message === 'erasure in Paper archive confirmed by clara'));

    const [other] = await tasksOf(service, second.id);
    for (const json of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x'.repeat(2001) }]) {
      const refused = await service.call('POST', `/v1/task/${other.id}/skip`, { token: clara, json });
      assert.equal(refused.status, 422, refused.text);
      assert.match(refused.body.detail, /reason/);
    }
    const skipped = await service.call('POST', `/v1/task/${other.id}/skip`, {
      token: clara,
      json: { reason: 'the archive burnt down in 2020' },
    });
    assert.equal(skipped.status, 200, skipped.text);
    assert.equal(skipped.body.status, 'skipped');
    assert.equal(skipped.body.skip_reason, 'the archive burnt down in 2020');
    await waitForStatus(service, second.id, 'complete');
    assert.ok(
      (await logOf(service, second.id)).some((entry) =>
        /erasure task in Paper archive skipped by clara: the archive burnt down/.test(entry.message),
      ),
    );
  });

  it('lists the inbox by status, assignee and overdue, and assigns to operators only', async () => {
    const created = await submit(service, {
      policy_key: 'manual_access',
      identity: { email: 'di@example.com' },
    });
    await waitForStatus(service, created.id, 'requires_input');
    const [task] = await tasksOf(service, created.id);
    const mine = await service.call('GET', '/v1/task?status=open&assignee=clara', { token: viewer });
    assert.equal(mine.status, 200);
    assert.ok(mine.body.items.some((item: { id: string }) => item.id === task.id));
    assert.ok(mine.body.items.every((item: { status: string }) => item.status === 'open'));

    const unknown = await service.call('PATCH', `/v1/task/${task.id}`, {
      token: clara,
      json: { assignee: 'ghost' },
    });
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail, /assignee/);
    const byViewer = await service.call('PATCH', `/v1/task/${task.id}`, {
      token: viewer,
      json: { assignee: 'vera' },
    });
    assert.equal(byViewer.status, 403);
    const moved = await service.call('PATCH', `/v1/task/${task.id}`, {
      token: clara,
      json: { assignee: 'vera' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal(moved.body.assignee, 'vera');
    const hers = await service.call('GET', '/v1/task?assignee=vera', { token: viewer });
    assert.deepEqual(
      hers.body.items.map((item: { id: string }) => item.id),
      [task.id],
    );
    assert.ok(
      (await logOf(service, created.id)).some(
        (entry) => entry.message === 'access task in Old CRM assigned to vera by clara',
      ),
    );

    await service.services.db.query(`UPDATE tasks SET due_at = now() - interval '1 day' WHERE id = $1`, [
      task.id,
    ]);
    const overdue = await service.call('GET', '/v1/task?overdue=true', { token: viewer });
    assert.deepEqual(
      overdue.body.items.map((item: { id: string; overdue: boolean }) => [item.id, item.overdue]),
      [[task.id, true]],
    );
    assert.equal((await service.call('GET', '/v1/task/no-such-task', { token: viewer })).status, 404);
    assert.equal((await service.call('GET', '/v1/task?status=stuck', { token: viewer })).status, 422);
  });
});
