import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  getRequest,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('halt and resume', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    // pre_a enriches, pre_b halts, pre_c and post_a see the merged identities.
    receiver.on('/pre_a', () => ({ body: { derived_identity: { phone_number: '+14155550123' } } }));
    receiver.on('/pre_b', () => ({ body: { halt: true } }));
    receiver.on('/post_a', () => ({ body: { halt: true } }));
    await policyWithWebhooks(
      service,
      receiver,
      'halting',
      [
        { key: 'pre_a', direction: 'two_way' },
        { key: 'pre_b', direction: 'two_way' },
        { key: 'pre_c', direction: 'one_way' },
      ],
      [
        { key: 'post_a', direction: 'two_way' },
        { key: 'post_b', direction: 'one_way' },
      ],
    );
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const resume = (id: string, token: string | undefined, json: unknown = {}, prefix = '') =>
    service.call('POST', `${prefix}/privacy-request/${id}/resume`, {
      json,
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  /** Submits a request and waits until pre_b has paused it; answers the request and both tokens. */
  async function pausedRequest(email = 'ada@example.com') {
    const created = await submit(service, {
      policy_key: 'halting',
      identity: { email, loyalty: { label: 'Loyalty id', value: 'L-1' } },
    });
    const paused = await waitForStatus(service, created.id, 'paused');
    const of = (path: string) => {
      const call = receiver
        .callsTo(path)
        .find((candidate) => candidate.body.privacy_request_id === created.id);
      assert.ok(call, `no call to ${path}`);
      return call;
    };
    return {
      id: created.id as string,
      paused,
      pauseToken: String(of('/pre_b').headers['reply-to-token']),
      passedToken: String(of('/pre_a').headers['reply-to-token']),
      callsFor: (path: string) =>
        receiver.callsTo(path).filter((candidate) => candidate.body.privacy_request_id === created.id),
    };
  }

  it('pauses on halt, resumes after the halting webhook, and later webhooks see the merged identities', async () => {
    const request = await pausedRequest();
    assert.equal(request.paused.status, 'paused');
    assert.notEqual(request.paused.paused_at, null);
    assert.deepEqual(request.paused.identity, {
      email: 'ada@example.com',
      phone_number: '+14155550123',
      loyalty: { label: 'Loyalty id', value: 'L-1' },
    });
    assert.equal(request.callsFor('/pre_c').length, 0, 'nothing runs past the halt');
    assert.deepEqual(request.callsFor('/pre_b')[0]?.body.identity.phone_number, '+14155550123');

    const answer = await resume(request.id, request.pauseToken, {
      derived_identity: {
        email: 'ada.lovelace@example.com',
        custom_identity: { label: 'Loyalty id', value: 'L-2' },
      },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.privacy_request_id, request.id);
    const done = await waitForStatus(service, request.id, 'complete');
    assert.equal(done.paused_at, null);

    const merged = {
      email: 'ada.lovelace@example.com',
      phone_number: '+14155550123',
      loyalty: { label: 'Loyalty id', value: 'L-2' },
    };
    assert.deepEqual(request.callsFor('/pre_c')[0]?.body.identity, merged);
    assert.deepEqual(request.callsFor('/post_b')[0]?.body.identity, merged);
    assert.equal(request.callsFor('/pre_a').length, 1);
    assert.equal(request.callsFor('/pre_b').length, 1, 'the halting webhook is not called again');

    const log = await logOf(service, request.id);
    const transitions = log
      .filter((entry) => entry.kind === 'transition')
      .map((entry) => `${entry.from_status}>${entry.to_status}`);
    assert.deepEqual(transitions, [
      'null>pending',
      'pending>approved',
      'approved>in_processing',
      'in_processing>paused',
      'paused>in_processing',
      'in_processing>complete',
    ]);
    assert.ok(log.some((entry) => entry.message === 'halt from a post-execution webhook ignored'));
    // Whole values, not fragments: ids and digests in the log are hex, where a run like "ada" can occur.
    const logText = JSON.stringify(log);
    for (const value of ['ada@example.com', 'ada.lovelace@example.com', '+14155550123', 'L-1', 'L-2']) {
      assert.equal(logText.includes(value), false, `no identity in the log: ${value}`);
    }

    const again = await resume(request.id, request.pauseToken);
    assert.equal(again.status, 401, 'a token works once');
    assert.match(again.body.detail, /already been used/);
  });

  it('refuses every bad token and changes nothing', async () => {
    const request = await pausedRequest('bob@example.com');
    const other = await pausedRequest('carol@example.com');

    const missing = await resume(request.id, undefined);
    assert.equal(missing.status, 401);
    const garbage = await resume(request.id, 'not-a-token');
    assert.equal(garbage.status, 401);
    const last = request.pauseToken.at(-2) === 'A' ? 'B' : 'A';
    const tampered = await resume(
      request.id,
      `${request.pauseToken.slice(0, -2)}${last}${request.pauseToken.at(-1)}`,
    );
    assert.equal(tampered.status, 401);
    const management = await resume(request.id, await service.rootToken());
    assert.equal(management.status, 401, 'a management token is not a reply-to-token');

    const foreign = await resume(request.id, other.pauseToken);
    assert.equal(foreign.status, 403);
    assert.match(foreign.body.detail, /another request/);

    const notThePausingWebhook = await resume(request.id, request.passedToken);
    assert.equal(notThePausingWebhook.status, 400);
    assert.match(notThePausingWebhook.body.detail, /paused on another webhook/);

    const badPhone = await resume(request.id, request.pauseToken, {
      derived_identity: { phone_number: '555' },
    });
    assert.equal(badPhone.status, 422);
    assert.match(badPhone.body.detail, /phone_number/);
    assert.equal(badPhone.text.includes('555'), false);
    const unknownField = await resume(request.id, request.pauseToken, { derived_identity: {}, extra: 1 });
    assert.equal(unknownField.status, 422);
    const notJson = await service.call('POST', `/privacy-request/${request.id}/resume`, {
      body: '{"derived_identity":',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${request.pauseToken}` },
    });
    assert.equal(notJson.status, 400);

    assert.equal((await getRequest(service, request.id)).status, 'paused', 'nothing changed');
    assert.equal((await getRequest(service, other.id)).status, 'paused');

    const unknownRequest = await resume('pri_00000000-0000-4000-8000-000000000000', request.pauseToken);
    assert.equal(unknownRequest.status, 403);

    // Both requests resume with their own tokens under the other prefixes; no body means {}.
    const viaApiV1 = await service.call('POST', `/api/v1/privacy-request/${request.id}/resume`, {
      headers: { authorization: `Bearer ${request.pauseToken}` },
    });
    assert.equal(viaApiV1.status, 200, viaApiV1.text);
    const viaV1 = await resume(other.id, other.pauseToken, {}, '/v1');
    assert.equal(viaV1.status, 200, viaV1.text);
    await waitForStatus(service, request.id, 'complete');
    await waitForStatus(service, other.id, 'complete');

    const notPaused = await resume(request.id, request.passedToken);
    assert.equal(notPaused.status, 400);
    assert.match(notPaused.body.detail, /not paused; it is complete/);
  });
});
