// Consent and opt-out over the real service, with a real SMTP server and a real webhook receiver: a public
// opt-out needs no code, is due within 15 business days and reaches every webhook with its
// consent_preferences; a consent rule records the preferences per identity (under the consent index, with
// history) and GET /v1/consent reads them; Sec-GPC: 1 records an opt-out; bad input changes nothing.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { addBusinessDays } from '../../src/deadlines/calendar.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  DEFAULT_ACTIONS,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import {
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

const OPT_OUT_POLICY = 'do_not_sell';
const OPT_OUT_ACTION = {
  policy_key: OPT_OUT_POLICY,
  title: 'Do not sell or share',
  description: 'Stop the sale and sharing of your personal information.',
  identity_inputs: { email: 'required' },
};

describe('consent and opt-out', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true, captureLogs: true });
    token = await service.rootToken();
    await policyWithWebhooks(
      service,
      receiver,
      OPT_OUT_POLICY,
      [{ key: 'ads_platform', direction: 'one_way' }],
      [{ key: 'crm_sync', direction: 'one_way' }],
    );
    const rule = await service.call('PATCH', `/v1/dsr/policy/${OPT_OUT_POLICY}/rule`, {
      token,
      json: [{ name: 'Record consent', key: 'record_consent', action_type: 'consent' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [...DEFAULT_ACTIONS.actions, OPT_OUT_ACTION],
    });
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  const email = (label: string) => `${label}.${randomUUID().slice(0, 8)}@Example.com`;
  const consentOf = async (query: string) => {
    const answer = await service.call('GET', `/v1/consent?${query}`, { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  };
  const requestCount = async () =>
    (await service.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM privacy_requests'))
      .rows[0]?.n;

  it('a public opt-out needs no code, is due in 15 business days, and every webhook gets its preferences', async () => {
    const subject = email('olive');
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: OPT_OUT_POLICY, identity: { email: subject } },
    });
    assert.equal(submitted.status, 200, submitted.text);
    assert.notEqual(submitted.body.status, 'identity_unverified');
    const id = submitted.body.id as string;
    await waitForStatus(service, id, 'complete');

    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.deepEqual(request.body.consent_preferences, [
      { data_use: 'marketing.advertising', opt_in: false },
    ]);
    const requestedAt = new Date(request.body.requested_at);
    assert.equal(request.body.due_date, addBusinessDays(requestedAt, 15).toISOString());
    assert.ok(new Date(request.body.due_date).getTime() - requestedAt.getTime() >= 19 * 86_400_000);

    for (const path of ['/ads_platform', '/crm_sync']) {
      const call = receiver.callsTo(path).find((candidate) => candidate.body.privacy_request.id === id);
      assert.ok(call, `${path} was called`);
      assert.deepEqual(call.body.privacy_request.consent_preferences, [
        { data_use: 'marketing.advertising', opt_in: false },
      ]);
      // Nothing proved the address: it reaches the webhooks apart, as every unproven value does.
      assert.deepEqual(call.body.identity, {}, 'an opt-out proves no identity');
      assert.equal(call.body.unverified_identity.email, subject, 'the opt-out names the value given');
    }
    await mail.waitFor(isKind('we received your request', subject));
    assert.equal(
      mail.mailsTo(subject).filter((message) => message.text.includes('your verification code')).length,
      0,
      'no code was sent',
    );

    const consent = await consentOf(`email=${encodeURIComponent(subject.toUpperCase())}`);
    assert.equal(consent.identity_kind, 'email');
    assert.deepEqual(
      consent.preferences.map((p: Record<string, unknown>) => [
        p.data_use,
        p.opt_in,
        p.source,
        p.privacy_request_id,
      ]),
      [['marketing.advertising', false, 'privacy_request', id]],
    );
    assert.equal(consent.history.length, 1);
    const stored = await service.services.db.query<{ found: number }>(
      `SELECT count(*)::int AS found FROM consent_history WHERE position($1::bytea IN identity_index) > 0`,
      [Buffer.from(subject.toLowerCase())],
    );
    assert.equal(stored.rows[0]?.found, 0, 'no identity value in the consent tables');
    const logs = service.logLines.join('\n').toLowerCase();
    assert.ok(logs.length > 0 && !logs.includes(subject.toLowerCase()), 'the identity is in no log line');
  });

  it('the API records an opt-in later: current preference changes, the history keeps both', async () => {
    const subject = email('pia');
    const out = await submit(service, {
      policy_key: OPT_OUT_POLICY,
      identity: { email: subject },
      consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
    });
    await waitForStatus(service, out.id, 'complete');
    const back = await submit(service, {
      policy_key: OPT_OUT_POLICY,
      identity: { email: subject },
      consent_preferences: [
        { data_use: 'marketing.advertising', opt_in: true },
        { data_use: 'functional.service.improve', opt_in: false },
      ],
    });
    await waitForStatus(service, back.id, 'complete');
    const consent = await consentOf(`email=${encodeURIComponent(subject)}`);
    assert.deepEqual(
      consent.preferences.map((p: Record<string, unknown>) => [p.data_use, p.opt_in]),
      [
        ['functional.service.improve', false],
        ['marketing.advertising', true],
      ],
    );
    assert.deepEqual(
      consent.history.map((p: Record<string, unknown>) => [p.data_use, p.opt_in, p.privacy_request_id]),
      [
        ['marketing.advertising', false, out.id],
        ['marketing.advertising', true, back.id],
        ['functional.service.improve', false, back.id],
      ],
    );
    const other = await consentOf(`email=${encodeURIComponent(email('nobody'))}`);
    assert.deepEqual(other.preferences, []);
  });

  it('Sec-GPC: 1 on a privacy-center submission records an opt-out for the identities given', async () => {
    const signalled = email('gina');
    const quiet = email('quinn');
    const withSignal = await service.call('POST', '/v1/privacy-center/privacy-request', {
      headers: { 'sec-gpc': '1' },
      json: { policy_key: 'default_access_policy', identity: { email: signalled } },
    });
    assert.equal(withSignal.status, 200, withSignal.text);
    assert.equal(
      withSignal.body.status,
      'identity_unverified',
      'the access request itself still needs its code',
    );
    const without = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email: quiet } },
    });
    assert.equal(without.status, 200, without.text);

    const consent = await consentOf(`email=${encodeURIComponent(signalled)}`);
    assert.deepEqual(
      consent.preferences.map((p: Record<string, unknown>) => [
        p.data_use,
        p.opt_in,
        p.source,
        p.privacy_request_id,
      ]),
      [['marketing.advertising', false, 'gpc', withSignal.body.id]],
    );
    assert.deepEqual((await consentOf(`email=${encodeURIComponent(quiet)}`)).preferences, []);
    const log = await logOf(service, withSignal.body.id);
    assert.ok(
      log.some((entry) => /Global Privacy Control/.test(entry.message ?? '')),
      JSON.stringify(log),
    );

    // The page's form carries the browser's signal too.
    const page = email('paige');
    const form = await fetch(`${service.url}/privacy-center/requests`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-gpc': '1', origin: service.url },
      body: new URLSearchParams({ policy_key: 'default_access_policy', email: page }).toString(),
    });
    assert.equal(form.status, 303);
    assert.equal((await consentOf(`email=${encodeURIComponent(page)}`)).preferences.length, 1);
  });

  it('the privacy center offers "Do not sell or share" for a published consent policy only', async () => {
    const html = await (await fetch(`${service.url}/privacy-center`)).text();
    const buttons = [...html.matchAll(/<button type="submit">([^<]+)<\/button>/g)].map((match) => match[1]);
    assert.deepEqual(buttons, [
      'Send this request',
      'Send this request',
      'Do not sell or share my personal information',
    ]);

    const subject = email('fiona');
    const form = await fetch(`${service.url}/privacy-center/requests`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
      body: new URLSearchParams({ policy_key: OPT_OUT_POLICY, email: subject }).toString(),
    });
    assert.equal(form.status, 303);
    const id = decodeURIComponent((form.headers.get('location') ?? '').split('/').pop() ?? '');
    await waitForStatus(service, id, 'complete');
    assert.equal((await consentOf(`email=${encodeURIComponent(subject)}`)).preferences[0].opt_in, false);
  });

  it('an opt-in from the public needs the code', async () => {
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: OPT_OUT_POLICY,
        identity: { email: email('ivy') },
        consent_preferences: [{ data_use: 'marketing.advertising', opt_in: true }],
      },
    });
    assert.equal(submitted.status, 200, submitted.text);
    assert.equal(submitted.body.status, 'identity_unverified');
  });

  it('bad input is refused and changes nothing', async () => {
    const before = await requestCount();
    const notBoolean = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: OPT_OUT_POLICY,
        identity: { email: email('bad') },
        consent_preferences: [{ data_use: 'marketing.advertising', opt_in: 'yes' }],
      },
    });
    assert.equal(notBoolean.status, 422, notBoolean.text);
    assert.match(notBoolean.body.detail, /opt_in/);
    const badUse = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: OPT_OUT_POLICY,
        identity: { email: email('bad') },
        consent_preferences: [{ data_use: 'Marketing Advertising!', opt_in: false }],
      },
    });
    assert.equal(badUse.status, 422, badUse.text);
    assert.match(badUse.body.detail, /data_use/);
    const onAccess = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: 'default_access_policy',
        identity: { email: email('bad') },
        consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
      },
    });
    assert.equal(onAccess.status, 422, onAccess.text);
    assert.match(onAccess.body.detail, /consent_preferences/);

    const api = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        { policy_key: OPT_OUT_POLICY, identity: { email: email('bad') } },
        {
          policy_key: OPT_OUT_POLICY,
          identity: { email: email('bad') },
          consent_preferences: [{ data_use: 'marketing.advertising', opt_in: 'no' }],
        },
      ],
    });
    assert.equal(api.status, 200, api.text);
    assert.equal(api.body.succeeded.length, 0);
    assert.match(api.body.failed[0].message, /consent_preferences is required/);
    assert.match(api.body.failed[1].message, /opt_in/);
    assert.equal(await requestCount(), before, 'no request was stored');

    for (const query of ['', `email=a%40example.com&phone_number=%2B14155550123`]) {
      const answer = await service.call('GET', `/v1/consent?${query}`, { token });
      assert.equal(answer.status, 422, answer.text);
    }
    assert.equal((await service.call('GET', '/v1/consent?email=a%40example.com')).status, 401);

    const badRule = await service.call('PATCH', `/v1/dsr/policy/${OPT_OUT_POLICY}/rule`, {
      token,
      json: [{ name: 'Targets', key: 'consent_with_targets', action_type: 'consent', targets: ['users.*'] }],
    });
    assert.equal(badRule.status, 200, badRule.text);
    assert.match(badRule.body.failed[0].message, /targets do not apply/);
  });
});
