// Nothing stuck unseen, over a real worker, receiver and SMTP server: a request running with no progress
// for LETHE_STUCK_AFTER_SECONDS, and one waiting on an overdue task, are flagged `stuck` (read, listed,
// filtered, and counted by lethe_privacy_requests_stuck); an overdue task's assignee is reminded by mail
// once a day, not at every sweep; and retry resumes an `error` request at the step that failed, without
// calling again the webhooks already answered, with the same Idempotency-Key.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type MailServer, startMailServer, subjectSideConfig } from '../helpers/subject-side.ts';
import {
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from './support.ts';

const ASSIGNEE = 'clara@example.com';

describe('stuck requests, reminders and retry', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let token: string;

  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port, { stuckAfterSeconds: 2 }), {
      worker: true,
    });
    token = await service.rootToken();
    await signIn(service, ASSIGNEE, ['contributor']);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  const stuckGauge = async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const match = /^lethe_privacy_requests_stuck (\d+)$/m.exec(text);
    assert.ok(match, 'the gauge is exported');
    return Number(match[1]);
  };
  const stuckIds = async () =>
    (await service.call('GET', '/v1/privacy-request?stuck=true', { token })).body.items.map(
      (item: { id: string; stuck: boolean }) => {
        assert.equal(item.stuck, true);
        return item.id;
      },
    );

  it('flags a request with no progress, and one with an overdue task', { timeout: 120_000 }, async () => {
    assert.equal(await stuckGauge(), 0);
    receiver.on('/slow', () => ({ delayMs: 6000 }));
    await policyWithWebhooks(service, receiver, 'slow_policy', [{ key: 'slow', direction: 'one_way' }]);
    const slow = await submit(service, { policy_key: 'slow_policy', identity: { email: 'hal@example.com' } });
    await receiver.waitFor('/slow');
    assert.equal((await service.call('GET', `/v1/privacy-request/${slow.id}`, { token })).body.stuck, false);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const running = await service.call('GET', `/v1/privacy-request/${slow.id}`, { token });
    assert.equal(running.body.status, 'in_processing');
    assert.equal(running.body.stuck, true);
    assert.equal(running.body.stuck_reason, 'stalled');
    assert.deepEqual(await stuckIds(), [slow.id]);
    assert.equal(await stuckGauge(), 1);
    await waitForStatus(service, slow.id, 'complete');
    assert.equal((await service.call('GET', `/v1/privacy-request/${slow.id}`, { token })).body.stuck, false);

    await putManualSystem(service, 'binder', { name: 'Binder', assignee: ASSIGNEE });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'binder access', key: 'binder_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const waiting = await submit(service, {
      policy_key: 'binder_access',
      identity: { email: 'ivy@example.com' },
    });
    await waitForStatus(service, waiting.id, 'requires_input');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    // Waiting for a task that is not yet due is not being stuck.
    assert.equal(
      (await service.call('GET', `/v1/privacy-request/${waiting.id}`, { token })).body.stuck,
      false,
    );
    const [task] = await tasksOf(service, waiting.id);
    await service.services.db.query(`UPDATE tasks SET due_at = now() - interval '1 hour' WHERE id = $1`, [
      task.id,
    ]);
    const overdue = await service.call('GET', `/v1/privacy-request/${waiting.id}`, { token });
    assert.equal(overdue.body.stuck, true);
    assert.equal(overdue.body.stuck_reason, 'task_overdue');
    assert.deepEqual(await stuckIds(), [waiting.id]);
    assert.equal(await stuckGauge(), 1);

    // The reminder: one mail to the assignee and one log note, however many sweeps run that day.
    const reminder = await mail.waitFor((candidate) => candidate.to.includes(ASSIGNEE));
    assert.match(reminder.text, /a task is overdue/);
    assert.match(reminder.text, new RegExp(`The task for Binder on privacy request ${waiting.id}`));
    await new Promise((resolve) => setTimeout(resolve, 3000));
    assert.equal(mail.mailsTo(ASSIGNEE).length, 1);
    const notes = (await logOf(service, waiting.id)).filter((entry) => / is overdue/.test(entry.message));
    assert.equal(notes.length, 1);
    assert.equal(notes[0].message, 'the access task in Binder is overdue: its assignee was reminded by mail');

    await service.call('POST', `/v1/task/${task.id}/complete`, { token, json: {} });
    await waitForStatus(service, waiting.id, 'complete');
    assert.equal(await stuckGauge(), 0);
    assert.equal((await service.call('DELETE', '/v1/manual-system/binder', { token })).status, 204);
  });

  it('retries from the failed step, calling no answered webhook again', { timeout: 120_000 }, async () => {
    let failing = true;
    receiver.on('/second', () => (failing ? { status: 500 } : { body: {} }));
    await policyWithWebhooks(service, receiver, 'retry_policy', [
      { key: 'first', direction: 'one_way' },
      { key: 'second', direction: 'two_way' },
    ]);
    const created = await submit(service, {
      policy_key: 'retry_policy',
      identity: { email: 'jo@example.com' },
    });
    await waitForStatus(service, created.id, 'error');
    const ofRequest = (path: string) =>
      receiver.callsTo(path).filter((call) => call.body?.privacy_request_id === created.id);
    assert.equal(ofRequest('/first').length, 1);
    const failedCalls = ofRequest('/second').length;
    assert.ok(failedCalls >= 1);
    const steps = await service.services.db.query<{ kind: string; webhook_key: string; done: boolean }>(
      `SELECT kind, webhook_key, completed_at IS NOT NULL AS done FROM privacy_request_steps
        WHERE privacy_request_id = $1 ORDER BY position`,
      [created.id],
    );
    assert.deepEqual(
      steps.rows.map((step) => [step.webhook_key ?? step.kind, step.done]),
      [
        ['first', true],
        ['second', false],
        ['rules', false],
      ],
    );

    failing = false;
    const retried = await service.call('POST', `/v1/privacy-request/${created.id}/retry`, { token });
    assert.equal(retried.status, 200, retried.text);
    await waitForStatus(service, created.id, 'complete');
    assert.equal(ofRequest('/first').length, 1, 'the answered webhook is not called again');
    const second = ofRequest('/second');
    assert.equal(second.length, failedCalls + 1);
    const keys = new Set(second.map((call) => call.headers['idempotency-key']));
    assert.deepEqual([...keys], [`${created.id}:second:pre`]);
  });

  it(
    "mails the reminder to the assignee operator's email, else notes it only",
    { timeout: 120_000 },
    async () => {
      const created = await service.call('POST', '/v1/user', {
        token,
        json: {
          username: 'pat',
          password: 'password of pat',
          roles: ['contributor'],
          email: 'pat.work@example.com',
        },
      });
      assert.equal(created.status, 201, created.text);
      await signIn(service, 'quinn', ['contributor']);
      await putManualSystem(service, 'ledger', { name: 'Ledger', assignee: 'pat' });
      await putManualSystem(service, 'archive', { name: 'Archive', assignee: 'quinn' });
      const policy = await service.call('PATCH', '/v1/dsr/policy', {
        token,
        json: [{ name: 'ledger access', key: 'ledger_access', drp_action: 'access' }],
      });
      assert.deepEqual(policy.body.failed, [], policy.text);
      const waiting = await submit(service, {
        policy_key: 'ledger_access',
        identity: { email: 'kim@example.com' },
      });
      await waitForStatus(service, waiting.id, 'requires_input');
      const tasks = await tasksOf(service, waiting.id);
      await service.services.db.query(
        `UPDATE tasks SET due_at = now() - interval '1 hour' WHERE id = ANY($1)`,
        [tasks.map((task) => task.id)],
      );

      const reminder = await mail.waitFor((candidate) => candidate.to.includes('pat.work@example.com'));
      assert.match(reminder.text, new RegExp(`The task for Ledger on privacy request ${waiting.id}`));
      const notes = (await logOf(service, waiting.id))
        .filter((entry) => / is overdue/.test(entry.message))
        .map((entry) => entry.message)
        .sort();
      assert.deepEqual(notes, [
        'the access task in Archive is overdue',
        'the access task in Ledger is overdue: its assignee was reminded by mail',
      ]);
      for (const task of tasks)
        await service.call('POST', `/v1/task/${task.id}/complete`, { token, json: {} });
      await waitForStatus(service, waiting.id, 'complete');
      for (const key of ['ledger', 'archive']) {
        assert.equal((await service.call('DELETE', `/v1/manual-system/${key}`, { token })).status, 204);
      }
    },
  );
});
