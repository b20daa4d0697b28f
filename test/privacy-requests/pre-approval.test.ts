import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  connectionTo,
  engineConfig,
  getRequest,
  logOf,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('pre-approval webhooks', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    await connectionTo(service, 'screening', `${receiver.url}/screening`, 'Basic c2NyZWVu');
    await connectionTo(service, 'fraud', `${receiver.url}/fraud`);
    const put = await service.call('PUT', '/v1/pre_approval_webhook', {
      token: await service.rootToken(),
      json: [
        { connection_config_key: 'screening', key: 'screening', name: 'Screening' },
        { connection_config_key: 'fraud', key: 'fraud', name: 'Fraud check' },
      ],
    });
    assert.equal(put.status, 200, put.text);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const answer = (id: string, verdict: 'eligible' | 'not-eligible', token: string | undefined, prefix = '') =>
    service.call('POST', `${prefix}/privacy-request/${id}/pre-approve/${verdict}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    });

  async function received(email: string) {
    const created = await submit(service, { policy_key: 'default_access_policy', identity: { email } });
    assert.equal(created.status, 'pending');
    const byPath = async (path: string) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const found = receiver
          .callsTo(path)
          .find((candidate) => candidate.body.privacy_request_id === created.id);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${path} call for ${created.id}`);
    };
    const screening = await byPath('/screening');
    const fraud = await byPath('/fraud');
    return { id: created.id as string, screening, fraud };
  }

  it('calls each pre-approval webhook on receipt and approves when all answer eligible', async () => {
    const request = await received('ok@example.com');
    const { screening, fraud } = request;
    assert.equal(screening.body.callback_type, 'pre_approval');
    assert.equal(screening.body.privacy_request.status, 'pending');
    assert.deepEqual(screening.body.identity, { email: 'ok@example.com' });
    assert.equal(screening.headers.authorization, 'Basic c2NyZWVu');
    assert.equal(fraud.headers.authorization, undefined, 'no authorization secret, no header');
    assert.equal(screening.headers['idempotency-key'], `${request.id}:screening:pre_approval`);
    assert.equal(
      screening.headers['reply-to-eligible'],
      `/privacy-request/${request.id}/pre-approve/eligible`,
    );
    assert.equal(
      screening.headers['reply-to-not-eligible'],
      `/privacy-request/${request.id}/pre-approve/not-eligible`,
    );
    assert.notEqual(screening.headers['reply-to-token'], fraud.headers['reply-to-token']);

    const first = await answer(request.id, 'eligible', String(screening.headers['reply-to-token']));
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { privacy_request_id: request.id, status: 'pending' });
    const reused = await answer(request.id, 'eligible', String(screening.headers['reply-to-token']));
    assert.equal(reused.status, 401);
    assert.equal((await getRequest(service, request.id)).status, 'pending', 'one answer is not enough');

    const second = await answer(request.id, 'eligible', String(fraud.headers['reply-to-token']), '/v1');
    assert.equal(second.status, 200, second.text);
    await waitForStatus(service, request.id, 'complete');
    const log = await logOf(service, request.id);
    assert.ok(log.some((entry) => /every pre-approval webhook answered eligible/.test(entry.message ?? '')));
  });

  it('leaves the request pending for manual review on a not-eligible answer', async () => {
    const request = await received('maybe@example.com');
    const other = await received('other@example.com');
    const screeningToken = String(request.screening.headers['reply-to-token']);

    assert.equal((await answer(request.id, 'eligible', undefined)).status, 401);
    assert.equal((await answer(request.id, 'eligible', 'garbage')).status, 401);
    assert.equal((await answer(other.id, 'eligible', screeningToken)).status, 403);
    const resumeWithIt = await service.call('POST', `/privacy-request/${request.id}/resume`, {
      json: {},
      headers: { authorization: `Bearer ${screeningToken}` },
    });
    assert.equal(resumeWithIt.status, 401, 'a pre-approval token does not resume');
    const withBody = await service.call('POST', `/privacy-request/${request.id}/pre-approve/eligible`, {
      json: { surprise: true },
      headers: { authorization: `Bearer ${screeningToken}` },
    });
    assert.equal(withBody.status, 422);

    assert.equal((await answer(request.id, 'not-eligible', screeningToken, '/api/v1')).status, 200);
    assert.equal(
      (await answer(request.id, 'eligible', String(request.fraud.headers['reply-to-token']))).status,
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal((await getRequest(service, request.id)).status, 'pending');
    const log = await logOf(service, request.id);
    assert.ok(
      log.some((entry) =>
        /answered not eligible; the request awaits manual review/.test(entry.message ?? ''),
      ),
    );

    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: await service.rootToken(),
      json: { request_ids: [request.id] },
    });
    assert.equal(approved.status, 200);
    await waitForStatus(service, request.id, 'complete');

    // Answers after the request left pending are refused.
    const late = await answer(other.id, 'eligible', String(other.screening.headers['reply-to-token']));
    assert.equal(late.status, 200);
    await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: await service.rootToken(),
      json: { request_ids: [other.id], reason: 'duplicate' },
    });
    const afterDenial = await answer(other.id, 'eligible', String(other.fraud.headers['reply-to-token']));
    assert.equal(afterDenial.status, 400);
    assert.match(afterDenial.body.detail, /not awaiting pre-approval; it is denied/);
  });
});
