// Bad input on every endpoint of the subject's side answers a clear 4xx and changes nothing: settings,
// public submission, verification (wrong, expired and burnt codes), resend, cancel in a wrong status,
// download tokens and the outbox. "Nothing changes" is checked on the store itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cancelUnverifiedRequests } from '../../src/privacy-requests/cancel.ts';
import { logRepository } from '../../src/privacy-requests/log-repository.ts';
import { type CallResult, startTestService, type TestService } from '../helpers/service.ts';
import {
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  waitForStatus,
} from '../privacy-requests/support.ts';
import {
  codeIn,
  downloadLinkIn,
  DEFAULT_ACTIONS,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe('the subject side refuses bad input and changes nothing', () => {
  let mail: MailServer;
  let service: TestService;
  let receiver: Receiver;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    token = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
    await receiver.close();
  });

  /**
   * Every table the subject side writes, counted, with each request's status and log length (but the
   * delivery notes the outbox worker appends meanwhile).
   */
  const snapshot = async () => {
    const { rows } = await service.services.db.query<{ snapshot: unknown }>(
      `SELECT jsonb_build_object(
         'requests', (SELECT jsonb_agg(jsonb_build_array(id, status, canceled_at, identity_verified_at) ORDER BY id) FROM privacy_requests),
         'log', (SELECT count(*) FROM privacy_request_log WHERE details IS NULL OR NOT details ? 'outbox_message_id'),
         'outbox', (SELECT count(*) FROM outbox_messages),
         'links', (SELECT count(*) FROM access_package_links),
         'settings', (SELECT jsonb_agg(to_jsonb(s) - 'updated_at') FROM privacy_center_settings s)) AS snapshot`,
    );
    return rows[0]?.snapshot;
  };

  const unchanged = async (label: string, act: () => Promise<CallResult>, status: number) => {
    const before = await snapshot();
    const answer = await act();
    assert.equal(answer.status, status, `${label}: ${answer.text}`);
    assert.ok(
      answer.text.startsWith('<!doctype')
        ? answer.text.includes('<h1>')
        : (JSON.parse(answer.text).detail ?? JSON.parse(answer.text).message),
      `${label} says why`,
    );
    assert.deepEqual(await snapshot(), before, `${label} changed the store`);
    return answer;
  };

  const submit = (json: unknown) => service.call('POST', '/v1/privacy-center/privacy-request', { json });

  const submitted = async (email: string, policy = 'default_access_policy') => {
    const answer = await submit({ policy_key: policy, identity: { email } });
    assert.equal(answer.status, 200, answer.text);
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    return { id: answer.body.id as string, code };
  };

  it('settings: unknown policy, duplicate, oversized, unknown field, no token, wrong scope', async () => {
    const put = (json: unknown, auth: string | null = token) =>
      service.call('PUT', '/v1/privacy-center', { token: auth ?? undefined, json });
    const action = DEFAULT_ACTIONS.actions[0];
    const unknown = await unchanged(
      'unknown policy',
      () => put({ ...DEFAULT_ACTIONS, actions: [{ ...action, policy_key: 'no_such_policy' }] }),
      422,
    );
    assert.match(unknown.text, /no_such_policy/);
    await unchanged('duplicate', () => put({ ...DEFAULT_ACTIONS, actions: [action, action] }), 422);
    await unchanged('oversized title', () => put({ ...DEFAULT_ACTIONS, title: 'x'.repeat(201) }), 422);
    await unchanged(
      'no identity input',
      () => put({ ...DEFAULT_ACTIONS, actions: [{ ...action, identity_inputs: {} }] }),
      422,
    );
    await unchanged('unknown field', () => put({ ...DEFAULT_ACTIONS, secret: 1 }), 422);
    await unchanged('no token', () => put(DEFAULT_ACTIONS, null), 401);
    const client = await service.call('POST', '/v1/oauth/client', {
      token,
      json: { scopes: ['privacy-center:read'] },
    });
    assert.equal(client.status, 201, client.text);
    const reader = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.body.client_id,
        client_secret: client.body.client_secret,
      }),
    });
    await unchanged('wrong scope', () => put(DEFAULT_ACTIONS, reader.body.access_token), 403);
    const read = await service.call('GET', '/v1/privacy-center', { token: reader.body.access_token });
    assert.equal(read.status, 200);
    assert.equal(read.body.organization_name, 'Example Ltd');
    const publicConfig = await service.call('GET', '/v1/privacy-center/config');
    assert.deepEqual(publicConfig.body, read.body);
  });

  it('submission: unknown or unpublished policy, phone only, fields not asked, oversized, malformed', async () => {
    const unknown = await unchanged(
      'unknown policy',
      () => submit({ policy_key: 'no_such_policy', identity: { email: 'a@example.com' } }),
      404,
    );
    assert.match(unknown.text, /no_such_policy/);
    await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'Hidden', key: 'hidden_policy' }],
    });
    const hidden = await unchanged(
      'unpublished policy',
      () => submit({ policy_key: 'hidden_policy', identity: { email: 'a@example.com' } }),
      404,
    );
    assert.match(hidden.text, /hidden_policy is not published/);
    const phoneOnly = await unchanged(
      'phone only',
      () => submit({ policy_key: 'default_erasure_policy', identity: { phone_number: '+14155550123' } }),
      422,
    );
    assert.match(phoneOnly.text, /cannot be verified|required/);
    await unchanged(
      'phone not asked',
      () =>
        submit({
          policy_key: 'default_access_policy',
          identity: { email: 'a@example.com', phone_number: '+14155550123' },
        }),
      422,
    );
    await unchanged('no identity', () => submit({ policy_key: 'default_access_policy', identity: {} }), 422);
    await unchanged(
      'oversized email',
      () =>
        submit({
          policy_key: 'default_access_policy',
          identity: { email: `${'a'.repeat(400)}@example.com` },
        }),
      422,
    );
    await unchanged(
      'oversized policy key',
      () => submit({ policy_key: 'p'.repeat(5000), identity: { email: 'a@example.com' } }),
      422,
    );
    await unchanged(
      'not an email',
      () => submit({ policy_key: 'default_access_policy', identity: { email: 'nope' } }),
      422,
    );
    await unchanged(
      'custom identity',
      () =>
        submit({
          policy_key: 'default_access_policy',
          identity: { email: 'a@example.com', loyalty: { label: 'x', value: 'y' } },
        }),
      422,
    );
    await unchanged(
      'not JSON',
      () =>
        service.call('POST', '/v1/privacy-center/privacy-request', {
          body: '{',
          headers: { 'content-type': 'application/json' },
        }),
      400,
    );
  });

  it('phone-only identities are accepted when verification is off, and skip it', async () => {
    const open = await startTestService(
      subjectSideConfig(undefined, { identityVerificationRequired: false }),
    );
    try {
      await publishDefaults(open);
      const answer = await open.call('POST', '/v1/privacy-center/privacy-request', {
        json: {
          policy_key: 'default_erasure_policy',
          identity: { email: 'p@example.com', phone_number: '+14155550123' },
        },
      });
      assert.equal(answer.status, 200, answer.text);
      assert.notEqual(answer.body.status, 'identity_unverified');
    } finally {
      await open.stop();
    }
  });

  it('verification: wrong code 403 and nothing changes; malformed; unknown; expired; burnt after 5 tries', async () => {
    const email = `verify.${Date.now()}@example.com`;
    const { id, code } = await submitted(email);
    const wrong = code === '000000' ? '111111' : '000000';
    const verify = (json: unknown, target = id) =>
      service.call('POST', `/v1/privacy-request/${target}/verify`, { json });
    const status = async () =>
      (await service.call('GET', `/v1/privacy-center/privacy-request/${id}`)).body.status;
    const firstWrong = await unchanged('wrong code', () => verify({ code: wrong }), 403);
    assert.match(firstWrong.text, /Wrong code; 4 tries left/);
    await unchanged('five digits', () => verify({ code: '12345' }), 422);
    await unchanged('letters', () => verify({ code: 'abcdef' }), 422);
    await unchanged('no body', () => service.call('POST', `/v1/privacy-request/${id}/verify`), 422);
    await unchanged(
      'unknown request',
      () => verify({ code }, 'pri_00000000-0000-4000-8000-000000000000'),
      404,
    );

    await service.services.db.query(
      `UPDATE identity_verifications SET expires_at = now() - interval '1 second' WHERE privacy_request_id = $1`,
      [id],
    );
    const expired = await unchanged('expired code', () => verify({ code }), 403);
    assert.match(expired.text, /expired/);
    assert.equal(await status(), 'identity_unverified');

    const second = await submitted(`burnt.${Date.now()}@example.com`);
    for (let attempt = 1; attempt <= 5; attempt += 1)
      assert.equal(
        (await verify({ code: second.code === '000000' ? '111111' : '000000' }, second.id)).status,
        403,
      );
    const burnt = await unchanged('burnt code', () => verify({ code: second.code }, second.id), 403);
    assert.match(burnt.text, /too many wrong tries/);
  });

  it('resend: at most once a minute (429 with Retry-After), then a new code replaces the old one', async () => {
    const email = `resend.${Date.now()}@example.com`;
    const { id, code } = await submitted(email);
    const resend = (target = id) => service.call('POST', `/v1/privacy-request/${target}/verify/resend`);
    const early = await unchanged('resend within a minute', () => resend(), 429);
    assert.ok(Number(early.headers.get('retry-after')) > 0);
    await unchanged('resend unknown', () => resend('pri_00000000-0000-4000-8000-000000000000'), 404);
    await service.services.db.query(
      `UPDATE identity_verifications SET sent_at = now() - interval '61 seconds' WHERE privacy_request_id = $1`,
      [id],
    );
    assert.equal((await resend()).status, 200);
    await mail.waitFor(
      (m) => m.to.includes(email) && m.text.includes('verification code') && !m.text.includes(code),
    );
    const codes = mail
      .mailsTo(email)
      .filter((m) => m.text.includes('enter this code'))
      .map(codeIn);
    assert.equal(codes.length, 2);
    if (codes[0] !== codes[1])
      await unchanged(
        'the old code',
        () => service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } }),
        403,
      );
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, {
      json: { code: codes[1] },
    });
    assert.equal(verified.status, 200, verified.text);
    await unchanged(
      'verify twice',
      () => service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code: codes[1] } }),
      400,
    );
    await unchanged('resend after verification', () => resend(), 400);
  });

  it('cancel: allowed states set canceled_at and cancel_reason; a wrong status is 400 and nothing changes', async () => {
    const email = `cancel.${Date.now()}@example.com`;
    const { id } = await submitted(email);
    const cancel = (target: string, json?: unknown, auth: string | null = token) =>
      service.call('POST', `/v1/privacy-request/${target}/cancel`, { token: auth ?? undefined, json });
    await unchanged('no token', () => cancel(id, {}, null), 401);
    await unchanged('oversized reason', () => cancel(id, { reason: 'r'.repeat(1001) }), 422);
    await unchanged('unknown field', () => cancel(id, { why: 'x' }), 422);
    await unchanged('unknown request', () => cancel('pri_00000000-0000-4000-8000-000000000000', {}), 404);
    const canceled = await cancel(id, { reason: 'asked by phone' });
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(canceled.body.cancel_reason, 'asked by phone');
    assert.ok(canceled.body.canceled_at);
    await mail.waitFor(isKind('your request was canceled', email));
    const again = await unchanged('cancel a canceled request', () => cancel(id, {}), 400);
    assert.match(again.text, /status canceled/);
    await unchanged(
      'verify a canceled request',
      () => service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code: '123456' } }),
      400,
    );

    const operator = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        { policy_key: 'default_access_policy', identity: { email: `denied.${Date.now()}@example.com` } },
      ],
    });
    const deniedId = operator.body.succeeded[0].id as string;
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token,
      json: { request_ids: [deniedId], reason: 'not our customer' },
    });
    assert.equal(denied.status, 200, denied.text);
    await unchanged('cancel a denied request', () => cancel(deniedId, {}), 400);
    const deniedMail = await mail.waitFor((m) => m.text.includes('your request was declined'));
    assert.match(deniedMail.text, /Reason: not our customer/);
  });

  it('cancel of a paused request kills its reply-to-token and no webhook runs after it', async () => {
    await policyWithWebhooks(service, receiver, 'halting_policy', [
      { key: 'halt', direction: 'two_way' },
      { key: 'after', direction: 'one_way' },
    ]);
    receiver.on('/halt', () => ({ body: { halt: true } }));
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ policy_key: 'halting_policy', identity: { email: `paused.${Date.now()}@example.com` } }],
    });
    const id = created.body.succeeded[0].id as string;
    await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [id] },
    });
    const [halt] = await receiver.waitFor('/halt');
    await waitForStatus(service, id, 'paused');
    const canceled = await service.call('POST', `/v1/privacy-request/${id}/cancel`, {
      token,
      json: { reason_code: 'subject_withdrew' },
    });
    assert.equal(canceled.status, 200, canceled.text);
    const resume = await service.call('POST', `/v1/privacy-request/${id}/resume`, {
      token: String(halt?.headers['reply-to-token']),
      json: {},
    });
    assert.equal(resume.status, 401, resume.text);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.callsTo('/after').length, 0, 'no webhook after the cancel');
    assert.equal((await service.call('GET', `/v1/privacy-request/${id}`, { token })).body.status, 'canceled');
  });

  it('the sweep cancels requests unverified for longer than the threshold, with the reason', async () => {
    const email = `sweep.${Date.now()}@example.com`;
    const { id } = await submitted(email);
    assert.equal(await cancelUnverifiedRequests(service.services, 3600), 0, 'a fresh request stays');
    assert.ok((await cancelUnverifiedRequests(service.services, 0)) >= 1);
    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.equal(request.body.status, 'canceled');
    assert.equal(request.body.cancel_reason, 'identity not verified in time');
    assert.equal(request.body.cancel_reason_code, 'unverifiable');
  });

  it('the sweep cancels an unverified request whose log is being written meanwhile (its mail delivered)', async () => {
    const email = `sweep.busy.${Date.now()}@example.com`;
    const { id } = await submitted(email);
    // A log entry inserted in a transaction still open holds a key-share lock on the request's row, as the
    // outbox's delivery does while it logs the mail it sent; the sweep must not skip the request for it.
    await service.services.db.transaction(async (tx) => {
      await logRepository.appendLog(tx, id, [{ kind: 'note', message: 'a delivery being logged' }]);
      assert.ok((await cancelUnverifiedRequests(service.services, 0)) >= 1);
    });
    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.equal(request.body.status, 'canceled');
  });

  it('download: unknown, malformed, oversized and expired tokens are refused', async () => {
    const get = (path: string) => service.call('GET', path);
    await unchanged('unknown token', () => get(`/privacy-center/download/${'A'.repeat(43)}`), 404);
    await unchanged('malformed token', () => get('/privacy-center/download/..%2F..%2Fetc'), 404);
    await unchanged('long token', () => get(`/privacy-center/download/${'A'.repeat(5000)}`), 414);

    const email = `link.${Date.now()}@example.com`;
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ policy_key: 'default_access_policy', identity: { email } }],
    });
    const id = created.body.succeeded[0].id as string;
    await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [id] },
    });
    await waitForStatus(service, id, 'complete');
    // The mail holds the link (the outbox purges a delivered message's body).
    const link = new URL(downloadLinkIn(await mail.waitFor(isKind('your request is complete', email))));
    assert.equal((await fetch(link)).status, 200, 'the link works while it lives');
    await service.services.db.query(
      `UPDATE access_package_links SET expires_at = now() - interval '1 second' WHERE privacy_request_id = $1`,
      [id],
    );
    const expired = await unchanged('expired token', () => get(link.pathname), 404);
    assert.match(expired.text, /unknown or has expired/);
  });

  it('the page forms: a clear 4xx page and nothing changes', async () => {
    const form = (path: string, fields: Record<string, string>) =>
      service.call('POST', path, { body: new URLSearchParams(fields) });
    const unpublished = await unchanged(
      'form: unknown policy',
      () => form('/privacy-center/requests', { policy_key: 'no_such_policy', email: 'a@example.com' }),
      404,
    );
    assert.match(unpublished.text, /role="alert">This request is not published in the privacy center\./);
    const badEmail = await unchanged(
      'form: not an email',
      () => form('/privacy-center/requests', { policy_key: 'default_access_policy', email: 'nope' }),
      422,
    );
    assert.match(badEmail.text, /value="nope"/, 'the form keeps what was typed');
    await unchanged(
      'form: oversized email',
      () =>
        form('/privacy-center/requests', {
          policy_key: 'default_access_policy',
          email: `${'a'.repeat(400)}@example.com`,
        }),
      422,
    );
    await unchanged(
      'form: phone not asked',
      () =>
        form('/privacy-center/requests', {
          policy_key: 'default_access_policy',
          email: 'a@example.com',
          phone_number: '+14155550123',
        }),
      422,
    );
    await unchanged(
      'form: unknown request',
      () => service.call('GET', '/privacy-center/requests/pri_nothing'),
      404,
    );
    const { id, code } = await submitted(`form.${Date.now()}@example.com`);
    const malformed = await unchanged(
      'form: code format',
      () => form(`/privacy-center/requests/${id}/verify`, { code: '12ab' }),
      400,
    );
    assert.match(malformed.text, /6 digits/);
    await unchanged(
      'form: wrong code',
      () => form(`/privacy-center/requests/${id}/verify`, { code: code === '000000' ? '111111' : '000000' }),
      403,
    );
    const early = await unchanged(
      'form: resend too early',
      () => form(`/privacy-center/requests/${id}/resend`, {}),
      429,
    );
    assert.ok(Number(early.headers.get('retry-after')) > 0);
    const right = await service.call('POST', `/privacy-center/requests/${id}/verify`, {
      body: new URLSearchParams({ code }),
      headers: {},
    });
    assert.equal(right.status, 200, 'fetch follows the 303 to the status page');
    assert.match(right.text, /Your email address is verified/);
  });

  it('outbox: a token with privacy-request:read, bounded paging', async () => {
    await unchanged('no token', () => service.call('GET', '/v1/outbox'), 401);
    await unchanged('page size', () => service.call('GET', '/v1/outbox?size=100000', { token }), 422);
    await unchanged('state', () => service.call('GET', '/v1/outbox?state=lost', { token }), 422);
    const page = await service.call('GET', '/v1/outbox?size=2', { token });
    assert.equal(page.status, 200);
    assert.equal(page.body.items.length, 2);
    assert.ok(page.body.total > 2);
    assert.ok(page.body.items.every((item: { state: string }) => ['pending', 'sent'].includes(item.state)));
  });
});

describe('public submissions are throttled per address', () => {
  it('answers 429 with Retry-After after LETHE_PUBLIC_REQUESTS_PER_MINUTE calls', async () => {
    const service = await startTestService(subjectSideConfig(undefined, { publicRequestsPerMinute: 3 }));
    try {
      await publishDefaults(service);
      const submit = () =>
        service.call('POST', '/v1/privacy-center/privacy-request', {
          json: { policy_key: 'default_access_policy', identity: { email: 'someone@example.com' } },
        });
      for (let index = 0; index < 3; index += 1) assert.equal((await submit()).status, 200);
      const refused = await submit();
      assert.equal(refused.status, 429, refused.text);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      const { rows } = await service.services.db.query<{ total: number }>(
        'SELECT count(*)::int AS total FROM privacy_requests',
      );
      assert.equal(rows[0]?.total, 3);
    } finally {
      await service.stop();
    }
  });
});
