// A request waiting on manual tasks, canceled, over real HTTP, a real worker and a real SMTP server: the
// cancel closes its open tasks as `canceled` in its transaction (a done task keeps its status), says so in
// the request's log, and from then on the tasks are out of the inbox's open, overdue and mine views, the
// request is not stuck, no reminder goes out, and completing or skipping them is 409 with a sentence.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type MailServer, startMailServer, subjectSideConfig } from '../helpers/subject-side.ts';
import { logOf, submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from './support.ts';

const ASSIGNEE = 'clara@example.com';

describe('canceling a request that waits on tasks', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  let clara: string;

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    token = await service.rootToken();
    clara = await signIn(service, ASSIGNEE, ['contributor']);
    await putManualSystem(service, 'binder', { name: 'Binder', assignee: ASSIGNEE });
    await putManualSystem(service, 'shelf', { name: 'Shelf' });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'binder access', key: 'binder_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const taskIds = async (query: string, as = token) => {
    const answer = await service.call('GET', `/v1/task?${query}`, { token: as });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.items.map((task: { id: string }) => task.id);
  };
  const stuck = async (id: string) =>
    (await service.call('GET', `/v1/privacy-request/${id}`, { token })).body.stuck as boolean;

  it('closes its open tasks as canceled, for good', { timeout: 120_000 }, async () => {
    const created = await submit(service, {
      policy_key: 'binder_access',
      identity: { email: 'nia@example.com' },
    });
    await waitForStatus(service, created.id, 'requires_input');
    const bySystem = async () =>
      Object.fromEntries((await tasksOf(service, created.id)).map((task) => [task.system, task]));
    const { binder, shelf } = await bySystem();
    const done = await service.call('POST', `/v1/task/${shelf.id}/complete`, {
      token,
      json: { data: { customer_number: 'S-1' } },
    });
    assert.equal(done.status, 200, done.text);
    // The binder's task is overdue (already reminded of today, so that no sweep mails before the cancel).
    await service.services.db.query(
      `UPDATE tasks SET due_at = now() - interval '1 hour', reminded_on = current_date WHERE id = $1`,
      [binder.id],
    );
    assert.equal(await stuck(created.id), true);
    assert.ok((await taskIds('overdue=true')).includes(binder.id));
    assert.ok((await taskIds(`status=open&assignee=${ASSIGNEE}`, clara)).includes(binder.id));

    const canceled = await service.call('POST', `/v1/privacy-request/${created.id}/cancel`, {
      token,
      json: { reason: 'the subject withdrew it', reason_code: 'subject_withdrew' },
    });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'canceled');

    const after = await bySystem();
    assert.equal(after.binder.status, 'canceled');
    assert.equal(after.binder.overdue, false);
    assert.ok(after.binder.done_at, 'the time it was closed is recorded');
    assert.equal(after.shelf.status, 'done', 'a task already done keeps its status');
    assert.ok(!(await taskIds('status=open')).includes(binder.id));
    assert.ok(!(await taskIds('overdue=true')).includes(binder.id));
    assert.ok(!(await taskIds(`status=open&assignee=${ASSIGNEE}`, clara)).includes(binder.id));
    assert.ok((await taskIds('status=canceled')).includes(binder.id));
    assert.equal(await stuck(created.id), false);

    const log = await logOf(service, created.id);
    const said = log.map((entry) => `${entry.from_status ?? ''}>${entry.to_status ?? ''} ${entry.message}`);
    const canceledAt = said.findIndex((line) => line.startsWith('requires_input>canceled'));
    const closedAt = said.indexOf('> 1 open task(s) canceled with the request: access in Binder');
    assert.ok(canceledAt >= 0 && closedAt > canceledAt, said.join('\n'));

    for (const [path, json] of [
      ['complete', { data: { customer_number: 'B-1' } }],
      ['skip', { reason: 'too late' }],
    ] as const) {
      const refused = await service.call('POST', `/v1/task/${binder.id}/${path}`, { token: clara, json });
      assert.equal(refused.status, 409, refused.text);
      assert.match(
        refused.body.detail,
        new RegExp(
          `^The task ${binder.id} was canceled with its privacy request ${created.id} \\(canceled\\)`,
        ),
      );
    }
    assert.equal((await bySystem()).binder.status, 'canceled');

    // A new day: an open overdue task would be reminded of at the next sweep (one a second); this one is not.
    await service.services.db.query('UPDATE tasks SET reminded_on = NULL WHERE id = $1', [binder.id]);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.deepEqual(mail.mailsTo(ASSIGNEE), []);
    assert.ok(!(await logOf(service, created.id)).some((entry) => / is overdue/.test(entry.message)));
  });
});
