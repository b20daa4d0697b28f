// Authorized agents over the real service, with a real SMTP server and a real webhook receiver: the code
// goes to the agent, the subject confirms through a mailed single-use link, and nothing runs before; an
// operator may accept a power of attorney instead (audited, with a reason); webhooks see submitted_by.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { confirmLinkIn } from './support.ts';
import {
  codeIn,
  DEFAULT_ACTIONS,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import {
  getRequest,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  waitForMessageLogged,
  waitForStatus,
} from '../privacy-requests/support.ts';

const POLICY = 'agent_access';

describe('authorized agents', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true, captureLogs: true });
    token = await service.rootToken();
    await policyWithWebhooks(service, receiver, POLICY, [{ key: 'agent_hook', direction: 'one_way' }]);
    const rule = await service.call('PATCH', `/v1/dsr/policy/${POLICY}/rule`, {
      token,
      json: [{ name: 'Collect', key: 'collect', action_type: 'access' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions,
        { policy_key: POLICY, title: 'Get my data', description: '', identity_inputs: { email: 'required' } },
      ],
    });
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  const address = (label: string) => `${label}.${randomUUID().slice(0, 8)}@example.com`;
  const submitWithAgent = async (subject: string, agent: string) => {
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: POLICY,
        identity: { email: subject },
        agent: { name: 'Avery Agent', email: agent },
      },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.status, 'identity_unverified');
    return answer.body.id as string;
  };
  const verifyAgent = async (id: string, agent: string) => {
    const code = codeIn(await mail.waitFor(isKind('your verification code', agent)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
    assert.deepEqual(
      verified.body,
      { id, status: 'identity_unverified' },
      'the subject has not confirmed yet',
    );
  };
  const callsFor = (id: string) => receiver.calls.filter((call) => call.body?.privacy_request?.id === id);

  it('the agent verifies their email, the subject confirms by the mailed link, then the request runs', async () => {
    const subject = address('sam');
    const agent = address('avery');
    const id = await submitWithAgent(subject, agent);
    assert.equal(mail.mailsTo(subject).length, 0, 'the code goes to the agent, not the subject');
    await verifyAgent(id, agent);

    const confirmMail = await mail.waitFor(isKind('confirm who acts for you', subject));
    // The agent's name is quoted as their own words, never as the organisation's.
    assert.match(confirmMail.text, /Someone who gave the name "Avery Agent" \(their words, not/);
    assert.equal(mail.mailsTo(agent).filter((m) => m.text.includes('confirm who acts for you')).length, 0);
    const link = confirmLinkIn(confirmMail);

    // Nothing runs before the subject confirms, and opening the link (a mail scanner does) changes nothing.
    const page = await fetch(link);
    assert.equal(page.status, 200);
    const pageHtml = await page.text();
    assert.match(pageHtml, /Yes, Avery Agent acts for me/);
    assert.ok(!/<script/i.test(pageHtml));
    assert.equal((await getRequest(service, id)).status, 'identity_unverified');
    assert.equal(callsFor(id).length, 0, 'no webhook was called');

    const confirmed = await fetch(link, { method: 'POST', headers: { origin: service.url } });
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /You confirmed that Avery Agent acts for you/);
    await waitForStatus(service, id, 'complete');
    const [call] = callsFor(id);
    assert.ok(call, 'the webhook was called');
    assert.equal(call.body.privacy_request.submitted_by, 'authorized_agent');
    assert.equal(call.body.identity.email, subject, "the subject's email is trusted once they confirmed");
    await mail.waitFor(isKind('your request is complete', subject));
    await waitForMessageLogged(service, id, 'completed');

    const logBefore = (await logOf(service, id)).length;
    const again = await fetch(link, { method: 'POST', headers: { origin: service.url } });
    assert.equal(again.status, 409);
    assert.match(await again.text(), /already used/);
    assert.equal((await logOf(service, id)).length, logBefore, 'nothing changed');

    const shown = await service.call('GET', `/v1/privacy-request/${id}/agent`, { token });
    assert.equal(shown.status, 200, shown.text);
    assert.equal(shown.body.name, 'Avery Agent');
    assert.equal(shown.body.email, agent);
    assert.equal(shown.body.authorization, 'subject_confirmed');
    assert.equal(shown.body.authorized_by, 'subject');
    assert.ok(shown.body.email_verified_at);

    const stored = await service.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM privacy_request_agents WHERE position($1::bytea IN agent_sealed) > 0`,
      [Buffer.from(agent)],
    );
    assert.equal(stored.rows[0]?.n, 0, 'the agent is sealed at rest');
    const logs = service.logLines.join('\n');
    assert.ok(!logs.includes(agent) && !logs.includes(subject), 'no agent or subject value in the log');
    assert.ok(!logs.includes(link.split('/').pop() as string), 'the link token is not logged');
  });

  it('an operator accepts a power of attorney with a reason instead of the subject', async () => {
    const subject = address('pat');
    const agent = address('olga');
    const id = await submitWithAgent(subject, agent);
    const early = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: 'signed power of attorney seen', identities: [] },
    });
    assert.equal(early.status, 400, 'not before the agent proved their email');
    assert.match(early.body.detail, /not verified their email/);
    await verifyAgent(id, agent);

    const blank = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: '   ', identities: [] },
    });
    assert.equal(blank.status, 422, blank.text);
    assert.match(blank.body.detail, /reason/);

    const accepted = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: 'signed power of attorney seen', identities: [] },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.body.submitted_by, 'authorized_agent');
    await waitForStatus(service, id, 'complete');
    const shown = await service.call('GET', `/v1/privacy-request/${id}/agent`, { token });
    assert.equal(shown.body.authorization, 'power_of_attorney');
    assert.equal(shown.body.reason, 'signed power of attorney seen');
    assert.equal(shown.body.authorized_by, 'root-test-client', 'the operator who accepted');
    const audit = await service.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM audit_log WHERE action = 'privacy-request.agent.accept'`,
    );
    assert.equal(audit.rows[0]?.n, 1);
    const log = await logOf(service, id);
    assert.ok(log.some((entry) => /power of attorney/.test(entry.message ?? '')));

    const twice = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: 'again', identities: [] },
    });
    assert.equal(twice.status, 400);
    // The subject's link, mailed when the agent verified, no longer confirms anything.
    const link = confirmLinkIn(await mail.waitFor(isKind('confirm who acts for you', subject)));
    const late = await fetch(link, { method: 'POST', headers: { origin: service.url } });
    assert.equal(late.status, 409);
  });

  it('an operator request made for an agent records the agent and runs as the operator’s', async () => {
    const subject = address('opal');
    const answer = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        {
          policy_key: POLICY,
          identity: { email: subject },
          agent: { name: 'Law Firm LLP', email: address('firm') },
        },
        { policy_key: POLICY, identity: { email: subject }, agent: { name: 'No Email' } },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.succeeded.length, 1);
    assert.match(answer.body.failed[0].message, /agent/);
    const id = answer.body.succeeded[0].id as string;
    assert.equal(answer.body.succeeded[0].submitted_by, 'authorized_agent');
    await waitForStatus(service, id, 'complete');
    const shown = await service.call('GET', `/v1/privacy-request/${id}/agent`, { token });
    assert.equal(shown.body.name, 'Law Firm LLP');
    assert.equal(shown.body.authorization, 'power_of_attorney');
    assert.equal(shown.body.authorized_by, 'root-test-client');
    const [call] = callsFor(id);
    assert.equal(call?.body.privacy_request.submitted_by, 'authorized_agent');
  });

  it('a new code goes to the agent', async () => {
    const subject = address('rex');
    const agent = address('rhea');
    const id = await submitWithAgent(subject, agent);
    await mail.waitFor(isKind('your verification code', agent));
    await service.services.db.query(
      `UPDATE identity_verifications SET sent_at = sent_at - interval '2 minutes' WHERE privacy_request_id = $1`,
      [id],
    );
    const resent = await service.call('POST', `/v1/privacy-request/${id}/verify/resend`);
    assert.equal(resent.status, 200, resent.text);
    await mail.waitFor(
      (m) =>
        m.to.includes(agent) && m.text.includes('your verification code') && mail.mailsTo(agent).length >= 2,
    );
    assert.equal(mail.mailsTo(subject).length, 0);
  });

  it('bad input is refused and changes nothing', async () => {
    const count = async () =>
      (await service.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM privacy_requests'))
        .rows[0]?.n;
    const before = await count();
    for (const agent of [
      { name: 'No Email' },
      { name: 'Bad', email: 'not-an-address' },
      { email: address('x') },
    ]) {
      const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
        json: { policy_key: POLICY, identity: { email: address('s') }, agent },
      });
      assert.equal(answer.status, 422, answer.text);
      assert.match(answer.body.detail, /agent/);
    }
    const form = await fetch(`${service.url}/privacy-center/requests`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: service.url },
      body: new URLSearchParams({
        policy_key: POLICY,
        email: address('s'),
        agent_name: 'Form Agent',
      }).toString(),
    });
    assert.equal(form.status, 422);
    assert.match(await form.text(), /Give your own email address as the agent: you receive the code\./);
    assert.equal(await count(), before);

    const unknown = await fetch(`${service.url}/privacy-center/confirm-agent/${'x'.repeat(43)}`);
    assert.equal(unknown.status, 404);
    const none = await service.call('GET', `/v1/privacy-request/pri_${randomUUID()}/agent`, { token });
    assert.equal(none.status, 404);
  });
});
