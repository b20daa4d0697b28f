// What a receiver written for Fides sees, against a real HTTP receiver: Fides' body fields
// (privacy_request_status, policy_action), the connection's extra headers under Lethe's own, Fides'
// pre-approval reply headers, the resume answer, finished_processing_at on error, and a pause that
// expires on time rather than at the next sweep.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '../../src/callbacks/signing.ts';
import { definePolicy } from '../privacy-requests/rule-support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  connectionTo,
  engineConfig,
  getRequest,
  type ReceivedCall,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

async function callFor(receiver: Receiver, path: string, id: string): Promise<ReceivedCall> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const found = receiver.callsTo(path).find((call) => call.body?.privacy_request_id === id);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no call to ${path} for ${id}`);
}

async function webhooksOn(
  service: TestService,
  policyKey: string,
  timing: 'pre_execution' | 'post_execution',
  hooks: { key: string; direction: 'one_way' | 'two_way'; connection: string }[],
) {
  const answer = await service.call('PUT', `/v1/policy/${policyKey}/webhook/${timing}`, {
    token: await service.rootToken(),
    json: hooks.map((hook) => ({
      connection_config_key: hook.connection,
      direction: hook.direction,
      key: hook.key,
      name: hook.key,
    })),
  });
  assert.equal(answer.status, 200, answer.text);
}

describe('callbacks as a Fides receiver sees them', () => {
  let service: TestService;
  let receiver: Receiver;
  let signingSecret: string;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    const token = await service.rootToken();
    signingSecret = await connectionTo(
      service,
      'tenant_hook',
      `${receiver.url}/tenant`,
      'Bearer the-real-one',
    );
    const headers = await service.call('PUT', '/api/v1/connection/tenant_hook/secret', {
      token,
      json: {
        url: `${receiver.url}/tenant`,
        authorization: 'Bearer the-real-one',
        headers: {
          'X-Tenant': 'acme',
          'X-Api-Version': '2024-01',
          Authorization: 'Bearer forged',
          'content-type': 'text/plain',
          'IDEMPOTENCY-KEY': 'forged',
          'Lethe-Signature': 't=1,v1=forged',
          'Reply-To-Token': 'forged',
        },
      },
    });
    assert.equal(headers.status, 200, headers.text);
    await connectionTo(service, 'bare_hook', `${receiver.url}/bare`);
    const bare = await service.call('PUT', '/v1/connection/bare_hook', {
      token,
      json: {
        url: `${receiver.url}/bare`,
        headers: { authorization: 'Bearer never-sent', 'X-Only': 'this' },
      },
    });
    assert.equal(bare.status, 200, bare.text);

    await definePolicy(service, 'fides_access', [
      { name: 'Access', key: 'fides_access_rule', action_type: 'access' },
    ]);
    await webhooksOn(service, 'fides_access', 'pre_execution', [
      { key: 'notify', direction: 'one_way', connection: 'tenant_hook' },
    ]);
    await webhooksOn(service, 'fides_access', 'post_execution', [
      { key: 'bare', direction: 'one_way', connection: 'bare_hook' },
    ]);
    await definePolicy(service, 'fides_erasure', [
      { name: 'Erase', key: 'fides_erasure_rule', action_type: 'erasure', targets: ['*'] },
    ]);
    await connectionTo(service, 'gate_hook', `${receiver.url}/gate`);
    await webhooksOn(service, 'fides_erasure', 'pre_execution', [
      { key: 'gate', direction: 'two_way', connection: 'gate_hook' },
    ]);
    await connectionTo(service, 'broken_hook', `${receiver.url}/broken`);
    await definePolicy(service, 'fides_broken', [
      { name: 'Access', key: 'fides_broken_rule', action_type: 'access' },
    ]);
    await webhooksOn(service, 'fides_broken', 'pre_execution', [
      { key: 'broken', direction: 'two_way', connection: 'broken_hook' },
    ]);
    receiver.on('/broken', () => ({ status: 500 }));
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it("adds privacy_request_status and policy_action to the body and sends the extra headers under Lethe's own", async () => {
    const created = await submit(service, {
      policy_key: 'fides_access',
      identity: { email: 'ada@example.com' },
    });
    const call = await callFor(receiver, '/tenant', created.id);
    assert.equal(call.body.privacy_request_status, 'in_processing');
    assert.equal(call.body.policy_action, 'access');
    assert.equal(call.body.callback_type, 'pre');
    assert.equal(call.body.direction, 'one_way');
    assert.deepEqual(call.body.identity, { email: 'ada@example.com' });
    assert.equal(call.body.privacy_request.id, created.id);

    assert.equal(call.headers['x-tenant'], 'acme');
    assert.equal(call.headers['x-api-version'], '2024-01');
    assert.equal(call.headers.authorization, 'Bearer the-real-one');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.equal(call.headers['idempotency-key'], `${created.id}:notify:pre`);
    assert.equal(call.headers['reply-to-token'], undefined);
    assert.ok(verifySignature(call.headers['lethe-signature'] as string, call.raw, signingSecret));

    const post = await callFor(receiver, '/bare', created.id);
    assert.equal(post.headers['x-only'], 'this');
    assert.equal(post.headers.authorization, undefined, 'a custom Authorization is never sent');
    assert.equal(post.headers['x-tenant'], undefined, 'headers belong to their own connection');
    await waitForStatus(service, created.id, 'complete');
  });

  it('names an erasure policy erasure; the resume answer is the privacy request plus privacy_request_id', async () => {
    receiver.on('/gate', () => ({ body: { halt: true } }));
    const created = await submit(service, {
      policy_key: 'fides_erasure',
      identity: { email: 'grace@example.com' },
    });
    const call = await callFor(receiver, '/gate', created.id);
    assert.equal(call.body.policy_action, 'erasure');
    assert.equal(call.body.privacy_request_status, 'in_processing');
    assert.equal(call.headers['reply-to'], `/privacy-request/${created.id}/resume`);
    await waitForStatus(service, created.id, 'paused');

    const resumed = await service.call('POST', `/api/v1${call.headers['reply-to'] as string}`, {
      json: { derived_identity: {} },
      headers: { authorization: `Bearer ${call.headers['reply-to-token'] as string}` },
    });
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.body.privacy_request_id, created.id);
    assert.equal(resumed.body.id, created.id);
    assert.equal(resumed.body.status, 'in_processing');
    assert.equal(resumed.body.policy.key, 'fides_erasure');
    assert.equal(resumed.body.paused_at, null);
    assert.equal('identity' in resumed.body, false, 'a reply-to-token holder is not shown the identities');
    assert.equal(resumed.text.includes('grace@example.com'), false);
    await waitForStatus(service, created.id, 'complete');
  });

  it('sets finished_processing_at when a request goes to error, and clears it on retry', async () => {
    const created = await submit(service, {
      policy_key: 'fides_broken',
      identity: { email: 'bob@example.com' },
    });
    const failed = await waitForStatus(service, created.id, 'error');
    assert.ok(failed.finished_processing_at, 'finished_processing_at is set');
    assert.ok(Date.parse(failed.finished_processing_at) >= Date.parse(failed.started_processing_at));

    receiver.on('/broken', () => ({ body: {} }));
    const retried = await service.call('POST', `/v1/privacy-request/${created.id}/retry`, {
      token: await service.rootToken(),
    });
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.finished_processing_at, null);
    const done = await waitForStatus(service, created.id, 'complete');
    assert.ok(done.finished_processing_at);
  });
});

describe('pre-approval calls as Fides makes them', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    await connectionTo(service, 'screening', `${receiver.url}/screening`);
    const put = await service.call('PUT', '/api/v1/dsr/webhook/pre_approval', {
      token: await service.rootToken(),
      json: [{ connection_config_key: 'screening', name: 'Screening' }],
    });
    assert.equal(put.status, 200, put.text);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it("carries reply-to-approve and reply-to-deny next to Lethe's names; approving through them runs the request", async () => {
    const created = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'ada@example.com' },
    });
    const call = await callFor(receiver, '/screening', created.id);
    assert.equal(call.body.callback_type, 'pre_approval');
    assert.equal(call.body.privacy_request_status, 'pending');
    assert.equal(call.body.policy_action, 'access');
    assert.equal(call.headers['reply-to-approve'], `/privacy-request/${created.id}/pre-approve/eligible`);
    assert.equal(call.headers['reply-to-deny'], `/privacy-request/${created.id}/pre-approve/not-eligible`);
    assert.equal(call.headers['reply-to-eligible'], call.headers['reply-to-approve']);
    assert.equal(call.headers['reply-to-not-eligible'], call.headers['reply-to-deny']);

    const approved = await service.call('POST', `/api/v1${call.headers['reply-to-approve'] as string}`, {
      headers: { authorization: `Bearer ${call.headers['reply-to-token'] as string}` },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, created.id, 'complete');
  });
});

describe('a paused request expires on time', () => {
  const DELAY_TIMEOUT_SECONDS = 3;
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    // The sweep runs once at start and then not for an hour: only the pause's own job can expire it.
    service = await startTestService(
      {
        ...engineConfig,
        privacyRequestDelayTimeoutSeconds: DELAY_TIMEOUT_SECONDS,
        sweepIntervalSeconds: 3600,
      },
      { worker: true },
    );
    await connectionTo(service, 'hold', `${receiver.url}/hold`);
    await definePolicy(service, 'held', [{ name: 'Access', key: 'held_rule', action_type: 'access' }]);
    await webhooksOn(service, 'held', 'pre_execution', [
      { key: 'hold', direction: 'two_way', connection: 'hold' },
    ]);
    receiver.on('/hold', () => ({ body: { halt: true } }));
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('goes to error within seconds of the reply-to-token expiring, with finished_processing_at', async () => {
    const created = await submit(service, { policy_key: 'held', identity: { email: 'late@example.com' } });
    const paused = await waitForStatus(service, created.id, 'paused');
    const pausedAt = Date.parse(paused.paused_at);
    // Generous for a loaded machine, yet far below the sweep's hour.
    const errored = await waitForStatus(service, created.id, 'error', 30_000);
    const detectedAfter = Date.now() - pausedAt;
    assert.ok(detectedAfter >= DELAY_TIMEOUT_SECONDS * 1000, `expired after ${detectedAfter} ms`);
    assert.ok(errored.finished_processing_at);
    // Found by the expiry's own timer, not by the hourly sweep: well under the hour however loaded the machine.
    assert.ok(Date.parse(errored.finished_processing_at) - pausedAt < 10 * 60_000);
    const { rows } = await service.services.db.query<{ error_reason: string }>(
      'SELECT error_reason FROM privacy_requests WHERE id = $1',
      [created.id],
    );
    assert.equal(rows[0]?.error_reason, 'paused request expired; resubmit it');

    const call = await callFor(receiver, '/hold', created.id);
    const late = await service.call('POST', `/privacy-request/${created.id}/resume`, {
      json: {},
      headers: { authorization: `Bearer ${call.headers['reply-to-token'] as string}` },
    });
    assert.equal(late.status, 401);
  });

  it('leaves a request resumed in time alone when its expiry job comes due', async () => {
    const created = await submit(service, { policy_key: 'held', identity: { email: 'quick@example.com' } });
    await waitForStatus(service, created.id, 'paused');
    const call = await callFor(receiver, '/hold', created.id);
    receiver.on('/hold', () => ({ body: {} }));
    const resumed = await service.call('POST', `/privacy-request/${created.id}/resume`, {
      json: {},
      headers: { authorization: `Bearer ${call.headers['reply-to-token'] as string}` },
    });
    assert.equal(resumed.status, 200, resumed.text);
    await waitForStatus(service, created.id, 'complete');
    await new Promise((resolve) => setTimeout(resolve, (DELAY_TIMEOUT_SECONDS + 2) * 1000));
    assert.equal((await getRequest(service, created.id)).status, 'complete');
  });
});
