import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scopedToken } from '../connections/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { endOfLocalDay, localDayOf, plusDays } from '../helpers/statute-days.ts';
import { engineConfig, getRequest, logOf, waitForStatus } from './support.ts';

describe('privacy request lifecycle with manual approval', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({ ...engineConfig, requireManualApproval: true }, { worker: true });
    token = await service.rootToken();
  });
  after(() => service.stop());

  const create = (json: unknown, withToken = token) =>
    service.call('POST', '/v1/privacy-request', { token: withToken, json });
  const review = (verb: 'approve' | 'deny', json: unknown, withToken = token) =>
    service.call('PATCH', `/v1/privacy-request/administrate/${verb}`, { token: withToken, json });
  const total = async () =>
    (await service.call('GET', '/v1/privacy-request?size=1', { token })).body.total as number;

  it('receives a request as pending with the seed object, its policy, due date and identities', async () => {
    const answer = await create([
      {
        policy_key: 'default_access_policy',
        identity: { email: 'ada@example.com', phone_number: '+14155550123' },
        external_id: 'ticket-7',
        source: 'web form',
        location: 'US-CA',
        custom_fields: [{ label: 'reason', value: 'curious' }],
      },
    ]);
    assert.equal(answer.status, 200, answer.text);
    const [request] = answer.body.succeeded;
    assert.equal(request.status, 'pending');
    assert.deepEqual(request.identity, { email: 'ada@example.com', phone_number: '+14155550123' });
    assert.equal(request.external_id, 'ticket-7');
    assert.equal(request.source, 'web form');
    assert.equal(request.location, 'US-CA');
    assert.deepEqual(request.custom_fields, [{ label: 'reason', value: 'curious' }]);
    assert.equal(request.client_id, 'root-test-client');
    assert.equal(request.submitted_by, 'root-test-client');
    assert.deepEqual(request.consent_preferences, []);
    assert.equal(request.policy.key, 'default_access_policy');
    assert.equal(request.policy.execution_timeframe, 45);
    assert.equal(request.policy.rules[0].key, 'default_access_rule');
    assert.equal(request.policy_id, request.policy.id);
    // California: 45 days from the day of receipt, to the end of that day in California.
    const zone = 'America/Los_Angeles';
    const due = endOfLocalDay(plusDays(localDayOf(new Date(request.requested_at), zone), 45), zone);
    assert.equal(request.due_date, due.toISOString());
    assert.equal(request.days_left, 45);
    for (const field of ['reviewed_at', 'paused_at', 'started_processing_at', 'finished_processing_at']) {
      assert.equal(request[field], null, field);
    }
    // A read also says whether the request is stuck (docs/human-steps.md); a fresh one is not.
    assert.deepEqual(await getRequest(service, request.id), { ...request, stuck: false, stuck_reason: null });
    const { rows } = await service.services.db.query<{ sealed: Uint8Array }>(
      'SELECT identity_sealed AS sealed FROM privacy_requests WHERE id = $1',
      [request.id],
    );
    assert.equal(Buffer.from(rows[0]?.sealed ?? []).includes('ada@example.com'), false, 'sealed at rest');
  });

  it('reports each bad item in failed, names the field, never echoes an identity, and creates nothing for it', async () => {
    const before = await total();
    const answer = await create([
      { policy_key: 'default_access_policy', identity: { email: 'not-an-email' } },
      { policy_key: 'default_access_policy', identity: { phone_number: '5550001111' } },
      { policy_key: 'default_access_policy', identity: {} },
      { policy_key: 'default_access_policy', identity: { loyalty: { label: 'x' } } },
      { policy_key: 'default_access_policy', identity: { 'bad key': { label: 'x', value: 'y' } } },
      { policy_key: 'no_such_policy', identity: { email: 'x@example.com' } },
      { policy_key: 'default_access_policy' },
      { policy_key: 'default_access_policy', identity: { email: 'x@example.com' }, surprise: true },
      { policy_key: 'default_erasure_policy', identity: { email: 'good@example.com' } },
    ]);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.succeeded.length, 1);
    assert.deepEqual(
      answer.body.failed.map((failure: { message: string }) => failure.message),
      [
        'identity.email must be an email address.',
        'identity.phone_number must be an E.164 phone number such as +14155550123.',
        'identity must name at least one identity.',
        'identity.loyalty must be an object {label, value} of two strings.',
        'identity.bad key is not an accepted identity name (letters, digits, underscore).',
        'No policy with key no_such_policy.',
        'identity is required.',
        'surprise is not an accepted field.',
      ],
    );
    assert.deepEqual(answer.body.failed[0].data, { policy_key: 'default_access_policy' });
    assert.equal(answer.text.includes('not-an-email'), false);
    assert.equal(answer.text.includes('5550001111'), false);
    assert.equal(await total(), before + 1);

    for (const body of [{}, 'text', [1], Array.from({ length: 51 }, () => ({}))]) {
      const refused = await create(body);
      assert.equal(refused.status, 422, JSON.stringify(body).slice(0, 40));
    }
    const malformed = await service.call('POST', '/v1/privacy-request', {
      token,
      body: '[{"policy_key":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(await total(), before + 1);
  });

  it('approves a pending request, which then runs to completion; illegal transitions answer 400', async () => {
    const [request] = (
      await create([{ policy_key: 'default_access_policy', identity: { email: 'b@example.com' } }])
    ).body.succeeded;
    await new Promise((resolve) => setTimeout(resolve, 700));
    assert.equal((await getRequest(service, request.id)).status, 'pending', 'manual approval waits');

    const retryPending = await service.call('POST', `/v1/privacy-request/${request.id}/retry`, { token });
    assert.equal(retryPending.status, 400);
    assert.equal(retryPending.body.detail, 'cannot retry a request in status pending');

    const approved = await review('approve', { request_ids: [request.id] });
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.succeeded[0].id, request.id);
    assert.equal(approved.body.succeeded[0].reviewed_by, 'root-test-client');
    const done = await waitForStatus(service, request.id, 'complete');
    assert.notEqual(done.reviewed_at, null);
    assert.notEqual(done.finalized_at, null);

    const again = await review('approve', { request_ids: [request.id] });
    assert.equal(again.status, 400);
    assert.equal(again.body.detail, 'cannot approve a request in status complete');
    const deny = await review('deny', { request_ids: [request.id], reason: 'late' });
    assert.equal(deny.status, 400);
    assert.equal(deny.body.detail, 'cannot deny a request in status complete');
    assert.equal((await getRequest(service, request.id)).status, 'complete');
  });

  it('denies with a reason, reports unknown ids among good ones, and refuses bad review bodies', async () => {
    const [first, second] = (
      await create([
        { policy_key: 'default_access_policy', identity: { email: 'c@example.com' } },
        { policy_key: 'default_access_policy', identity: { email: 'd@example.com' } },
      ])
    ).body.succeeded;
    const denied = await review('deny', {
      request_ids: [first.id, 'pri_00000000-0000-4000-8000-000000000000'],
      reason: 'not a customer',
    });
    assert.equal(denied.status, 200, denied.text);
    assert.equal(denied.body.succeeded[0].status, 'denied');
    assert.deepEqual(denied.body.failed, [
      {
        message: 'No privacy request with id pri_00000000-0000-4000-8000-000000000000.',
        data: { id: 'pri_00000000-0000-4000-8000-000000000000' },
      },
    ]);
    const log = await logOf(service, first.id);
    assert.equal(log.at(-1).to_status, 'denied');
    assert.match(log.at(-1).message, /not a customer/);

    const unknownOnly = await review('approve', { request_ids: ['pri_nope'] });
    assert.equal(unknownOnly.status, 404);
    for (const body of [
      {},
      { request_ids: [] },
      { request_ids: [second.id], extra: 1 },
      { request_ids: 'x' },
    ]) {
      const refused = await review('approve', body);
      assert.equal(refused.status, 422, JSON.stringify(body));
    }
    assert.equal((await getRequest(service, second.id)).status, 'pending', 'nothing changed');
  });

  it('lists with filters and pages; reads answer 404 for unknown ids', async () => {
    const [request] = (
      await create([
        { policy_key: 'default_access_policy', identity: { email: 'e@example.com' }, external_id: 'find-me' },
      ])
    ).body.succeeded;
    const byExternal = await service.call('GET', '/v1/privacy-request?external_id=find-me', { token });
    assert.deepEqual(
      byExternal.body.items.map((item: { id: string }) => item.id),
      [request.id],
    );
    assert.equal(byExternal.body.total, 1);
    const byId = await service.call('GET', `/api/v1/privacy-request?request_id=${request.id}`, { token });
    assert.equal(byId.body.items[0].id, request.id);
    const pending = await service.call('GET', '/privacy-request?status=pending&size=2&page=1', { token });
    assert.equal(pending.status, 200);
    assert.equal(pending.body.size, 2);
    assert.ok(pending.body.items.length <= 2);
    assert.ok(pending.body.items.every((item: { status: string }) => item.status === 'pending'));
    assert.ok(pending.body.total >= 2);

    assert.equal((await service.call('GET', '/v1/privacy-request?status=weird', { token })).status, 422);
    assert.equal((await service.call('GET', '/v1/privacy-request?page=0', { token })).status, 422);
    const unknown = 'pri_00000000-0000-4000-8000-000000000000';
    for (const suffix of ['', '/log', '/access-results']) {
      assert.equal(
        (await service.call('GET', `/v1/privacy-request/${unknown}${suffix}`, { token })).status,
        404,
      );
    }
    assert.equal((await service.call('POST', `/v1/privacy-request/${unknown}/retry`, { token })).status, 404);
    const notComplete = await service.call('GET', `/v1/privacy-request/${request.id}/access-results`, {
      token,
    });
    assert.equal(notComplete.status, 400);
  });

  it('checks tokens and scopes on every management endpoint', async () => {
    const reader = await scopedToken(service, ['privacy-request:read']);
    const [request] = (
      await create([{ policy_key: 'default_access_policy', identity: { email: 'f@example.com' } }])
    ).body.succeeded;
    assert.equal((await create([], reader)).status, 403);
    assert.equal((await review('approve', { request_ids: [request.id] }, reader)).status, 403);
    assert.equal((await review('deny', { request_ids: [request.id] }, reader)).status, 403);
    assert.equal(
      (await service.call('POST', `/v1/privacy-request/${request.id}/retry`, { token: reader })).status,
      403,
    );
    assert.equal(
      (await service.call('GET', `/v1/privacy-request/${request.id}`, { token: reader })).status,
      200,
    );
    assert.equal((await service.call('GET', `/v1/privacy-request/${request.id}`)).status, 401);
    assert.equal((await service.call('GET', '/v1/privacy-request')).status, 401);
    const creator = await scopedToken(service, ['privacy-request:create']);
    assert.equal((await service.call('GET', '/v1/privacy-request', { token: creator })).status, 403);
    assert.equal((await getRequest(service, request.id)).status, 'pending');
  });

  it('documents its routes in /openapi.json under /v1 only', async () => {
    const { paths } = (await service.call('GET', '/openapi.json')).body;
    for (const documented of [
      '/v1/privacy-request',
      '/v1/privacy-request/{id}',
      '/v1/privacy-request/{id}/log',
      '/v1/privacy-request/{id}/access-results',
      '/v1/privacy-request/administrate/approve',
      '/v1/privacy-request/administrate/deny',
      '/v1/privacy-request/{id}/retry',
      '/v1/privacy-request/{id}/resume',
      '/v1/privacy-request/{id}/pre-approve/eligible',
      '/v1/privacy-request/{id}/pre-approve/not-eligible',
    ]) {
      assert.ok(paths[documented], documented);
    }
    assert.equal(paths['/privacy-request/{id}/resume'], undefined);
    assert.equal(paths['/api/v1/privacy-request'], undefined);
    assert.ok(paths['/v1/privacy-request'].post.requestBody);
    assert.ok(paths['/v1/privacy-request/{id}'].get.responses['200']);
  });
});
