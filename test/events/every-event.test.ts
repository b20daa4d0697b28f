// Every event of docs/events.md, triggered through Lethe's own API, public pages and sweep on a running
// service with its worker, and received by a real local HTTP receiver: each CloudEvent's body is checked
// field by field and its signature verified with the Standard Webhooks reference library. No event body
// holds the subject's email. Slack and Teams receivers get their own shapes, signed the same way.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/events/catalog.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import {
  policyWithWebhooks,
  type ReceivedCall,
  type Receiver,
  startReceiver,
  waitForStatus,
} from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from '../tasks/support.ts';

const DOMAIN = 'events.example';

describe('every event, received and verified', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let root: string;
  const secrets = new Map<string, string>();
  const seen = new Set<string>();

  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    receiver.on('/fail', () => ({ status: 500 }));
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    await publishDefaults(service);
    for (const [key, format, events] of [
      ['everything', 'cloudevents', [...EVENT_TYPES]],
      ['chat', 'slack', ['privacy_request.received']],
      ['channel', 'teams', ['privacy_request.received']],
    ] as const) {
      const answer = await service.call('PUT', `/v1/event-subscription/${key}`, {
        token: root,
        json: { url: `${receiver.url}/${key}`, events, format },
      });
      assert.equal(answer.status, 201, answer.text);
      secrets.set(key, answer.body.secret);
    }
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  function verified(key: string, call: ReceivedCall) {
    const headers = call.headers as Record<string, string>;
    assert.match(headers['webhook-id'] ?? '', /^msg_[0-9a-f-]{36}$/);
    // Throws unless the signature, made with the subscription's secret, matches the body as sent.
    new Webhook(secrets.get(key) as string).verify(call.raw, {
      'webhook-id': headers['webhook-id'] as string,
      'webhook-timestamp': headers['webhook-timestamp'] as string,
      'webhook-signature': headers['webhook-signature'] as string,
    });
    assert.ok(!call.raw.includes(DOMAIN), 'no identity value in an event');
    return call.body;
  }

  /** The CloudEvent `type` about `subject`, once it arrives, verified and checked for its common fields. */
  async function event(type: string, subject: string, requestId = subject) {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const call = receiver
        .callsTo('/everything')
        .find(
          (candidate) => candidate.body?.type === `dev.lethe.${type}` && candidate.body?.subject === subject,
        );
      if (call) {
        const body = verified('everything', call);
        assert.equal(call.headers['content-type'], 'application/cloudevents+json');
        assert.equal(body.specversion, '1.0');
        assert.match(body.id, /^evt_[0-9a-f-]{36}$/);
        assert.equal(body.source, `${service.url}/`);
        assert.ok(Math.abs(Date.parse(body.time) - Date.now()) < 600_000, body.time);
        assert.equal(body.datacontenttype, 'application/json');
        assert.equal(body.data.privacy_request_id, requestId);
        assert.equal(body.data.console_url, `${service.url}/console/requests/${requestId}`);
        seen.add(type);
        return body;
      }
      if (Date.now() > deadline)
        throw new Error(
          `no ${type} for ${subject}; got ${receiver
            .callsTo('/everything')
            .map((c) => `${c.body?.type} ${c.body?.subject}`)
            .join(', ')}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const create = async (email: string, extra: Record<string, unknown> = {}) => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email }, ...extra }],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body.failed, [], answer.text);
    return answer.body.succeeded[0].id as string;
  };
  const approve = async (id: string) => {
    const answer = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: root,
      json: { request_ids: [id] },
    });
    assert.equal(answer.status, 200, answer.text);
  };

  it('received, extended, approved and completed, in that order, with the request’s facts', async () => {
    const id = await create(`flow@${DOMAIN}`, { location: 'US-CO' });
    const received = await event('privacy_request.received', id);
    assert.equal(received.data.status, 'pending');
    assert.equal(received.data.previous_status, null);
    assert.equal(received.data.policy_key, 'default_access_policy');
    assert.equal(received.data.jurisdiction, 'US-CO');
    assert.match(received.data.due_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const extended = await service.call('POST', `/v1/privacy-request/${id}/extend`, {
      token: root,
      json: { reason: 'Records are in three archives.' },
    });
    assert.equal(extended.status, 200, extended.text);
    const extension = await event('privacy_request.extended', id);
    assert.ok(Date.parse(extension.data.due_at) > Date.parse(received.data.due_at), 'the new due date');
    assert.ok(!JSON.stringify(extension).includes('archives'), 'the reason is free text: not sent');

    await approve(id);
    const approved = await event('privacy_request.approved', id);
    assert.equal(approved.data.status, 'approved');
    assert.equal(approved.data.previous_status, 'pending');
    await waitForStatus(service, id, 'complete');
    const completed = await event('privacy_request.completed', id);
    assert.equal(completed.data.status, 'complete');

    const order = receiver
      .callsTo('/everything')
      .filter((call) => call.body.subject === id)
      .map((call) => call.body.type);
    assert.deepEqual(order.slice(0, 3), [
      'dev.lethe.privacy_request.received',
      'dev.lethe.privacy_request.extended',
      'dev.lethe.privacy_request.approved',
    ]);
    assert.equal(order.at(-1), 'dev.lethe.privacy_request.completed');
  });

  it('Slack blocks and a Teams card for the same event, with the facts and the link, signed', async () => {
    const id = await create(`chat@${DOMAIN}`);
    await event('privacy_request.received', id);
    const [slack] = await receiver
      .waitFor('/chat', 2, 30_000)
      .then((calls) => calls.filter((call) => call.raw.includes(id)));
    const blocks = verified('chat', slack as ReceivedCall);
    assert.equal(blocks.text, `Privacy request received: ${id}`);
    assert.equal(blocks.blocks[0].text.text, 'Privacy request received');
    assert.ok(
      blocks.blocks[1].fields.some((field: { text: string }) => field.text === `*privacy request id*\n${id}`),
    );
    assert.equal(blocks.blocks[2].elements[0].url, `${service.url}/console/requests/${id}`);

    const [teams] = await receiver
      .waitFor('/channel', 2, 30_000)
      .then((calls) => calls.filter((call) => call.raw.includes(id)));
    const card = verified('channel', teams as ReceivedCall);
    assert.equal(card.type, 'message');
    const content = card.attachments[0].content;
    assert.equal(card.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
    assert.equal(content.type, 'AdaptiveCard');
    assert.equal(content.body[0].text, 'Privacy request received');
    assert.ok(content.body[1].facts.some((fact: { title: string; value: string }) => fact.value === id));
    assert.equal(content.actions[0].url, `${service.url}/console/requests/${id}`);
  });

  it('denied, then an appeal submitted and decided', async () => {
    const email = `appeal@${DOMAIN}`;
    const id = await create(email, { location: 'US-CO' });
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: root,
      json: { request_ids: [id], reason: 'Identity not matched.' },
    });
    assert.equal(denied.status, 200, denied.text);
    const denial = await event('privacy_request.denied', id);
    assert.equal(denial.data.status, 'denied');
    assert.ok(!JSON.stringify(denial).includes('Identity not matched'));

    const message = await mail.waitFor(isKind('your request was declined', email));
    const token = /\/privacy-center\/appeal\/([A-Za-z0-9_-]{43})/.exec(message.text)?.[1];
    assert.ok(token);
    const appealed = await service.call('POST', '/v1/privacy-center/appeal', {
      json: { token, statement: 'I do have an account.' },
    });
    assert.equal(appealed.status, 200, appealed.text);
    const submitted = await event('appeal.submitted', id);
    assert.equal(submitted.data.appeal_due_at, appealed.body.due_date);
    assert.ok(!JSON.stringify(submitted).includes('I do have'), 'the statement is the subject’s: not sent');

    const second = await signIn(service, 'second.reviewer', ['approver']);
    const decided = await service.call('POST', `/v1/privacy-request/${id}/appeal/decide`, {
      token: second,
      json: { outcome: 'upheld', reason: 'Still no account.' },
    });
    assert.equal(decided.status, 200, decided.text);
    const decision = await event('appeal.decided', id);
    assert.equal(decision.data.outcome, 'upheld');
  });

  it('canceled', async () => {
    const id = await create(`cancel@${DOMAIN}`);
    const canceled = await service.call('POST', `/v1/privacy-request/${id}/cancel`, {
      token: root,
      json: { reason_code: 'subject_withdrew' },
    });
    assert.equal(canceled.status, 200, canceled.text);
    const body = await event('privacy_request.canceled', id);
    assert.equal(body.data.status, 'canceled');
    assert.equal(body.data.previous_status, 'pending');
  });

  it('errored, when a pre-execution webhook fails', async () => {
    await policyWithWebhooks(service, receiver, 'failing_policy', [
      { key: 'fail', direction: 'two_way', path: '/fail' },
    ]);
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'failing_policy', identity: { email: `error@${DOMAIN}` } }],
    });
    const id = answer.body.succeeded[0].id as string;
    await approve(id);
    await waitForStatus(service, id, 'error');
    const body = await event('privacy_request.errored', id);
    assert.equal(body.data.status, 'error');
    assert.equal(body.data.policy_key, 'failing_policy');
  });

  it('verified, when the subject enters the mailed code', async () => {
    const email = `verify@${DOMAIN}`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email } },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const received = await event('privacy_request.received', id);
    assert.equal(received.data.status, 'identity_unverified');
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    const answer = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(answer.status, 200, answer.text);
    const body = await event('privacy_request.verified', id);
    assert.equal(body.data.previous_status, 'identity_unverified');
    assert.equal(body.data.status, 'pending');
  });

  it('due soon, once, for an open request due within LETHE_DUE_SOON_DAYS', async () => {
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token: root,
      json: [{ name: 'Quick', key: 'quick_policy', drp_action: 'access', execution_timeframe: 5 }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'quick_policy', identity: { email: `soon@${DOMAIN}` } }],
    });
    const id = answer.body.succeeded[0].id as string;
    const body = await event('privacy_request.due_soon', id);
    assert.equal(body.data.policy_key, 'quick_policy');
    // The sweep runs every second: a few more passes emit it no second time.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const dueSoon = receiver
      .callsTo('/everything')
      .filter((call) => call.body.type === 'dev.lethe.privacy_request.due_soon' && call.body.subject === id);
    assert.equal(dueSoon.length, 1);
  });

  it('task created, assigned, overdue (the request stuck with it) and completed', async () => {
    await putManualSystem(service, 'paper_files', { actions: ['erasure'] });
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_erasure_policy', identity: { email: `task@${DOMAIN}` } }],
    });
    const id = answer.body.succeeded[0].id as string;
    await approve(id);
    await waitForStatus(service, id, 'requires_input');
    const [task] = await tasksOf(service, id);
    const created = await event('task.created', task.id, id);
    assert.equal(created.data.task_id, task.id);
    assert.equal(created.data.system_key, 'paper_files');
    assert.equal(created.data.action, 'erasure');
    assert.equal(created.data.status, 'open');

    await signIn(service, 'task.owner', ['approver']);
    const assigned = await service.call('PATCH', `/v1/task/${task.id}`, {
      token: root,
      json: { assignee: 'task.owner' },
    });
    assert.equal(assigned.status, 200, assigned.text);
    assert.equal((await event('task.assigned', task.id, id)).data.assignee, 'task.owner');

    // The task's due time passes (as if days went by): the sweep finds it overdue, and its request stuck.
    await service.services.db.query(`UPDATE tasks SET due_at = now() - interval '1 day' WHERE id = $1`, [
      task.id,
    ]);
    assert.ok((await event('task.overdue', task.id, id)).data.due_at);
    const stuck = await event('privacy_request.stuck', id);
    assert.equal(stuck.data.status, 'requires_input');

    const done = await service.call('POST', `/v1/task/${task.id}/complete`, { token: root, json: {} });
    assert.equal(done.status, 200, done.text);
    const completed = await event('task.completed', task.id, id);
    assert.equal(completed.data.status, 'done');
  });

  it('covered every event of the list', () => {
    assert.deepEqual(
      EVENT_TYPES.filter((type) => !seen.has(type)),
      [],
    );
  });
});
