// Only proof mints trust on the authorized-agent path (issue 34, the third review's high finding). A
// stranger names themselves as agent, gives their own second address as the "subject" and adds a
// victim's phone number; they verify the agent's code and click the confirm-agent link, both at addresses
// they own. The link proves the address it was mailed to, nothing typed beside it: the access package
// holds nothing of the victim's, the victim's opt-out stays, an erasure an operator approves erases
// nothing of theirs and a correction rewrites nothing. A power of attorney establishes only the identities
// the operator names. Real service, real SMTP server, real datastore.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  attributesOf,
  definePolicy,
  entity,
  openStores,
  type Stores,
  uploadFile,
} from '../privacy-requests/rule-support.ts';
import { getRequest, logOf, submit, waitForStatus } from '../privacy-requests/support.ts';
import {
  codeIn,
  DEFAULT_ACTIONS,
  downloadLinkIn,
  isKind,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { recipientIndex } from '../../src/outbox/recipient-caps.ts';
import { confirmLinkIn } from './support.ts';

const CONSENT = 'agent_consent';
const CORRECT = 'agent_correct';
const ASK_PHONE = { email: 'required', phone_number: 'optional' };

interface Victim {
  email: string;
  phone: string;
  userId: string;
  values: string[];
}

describe('the authorized-agent path trusts the subject’s address only', () => {
  let mail: MailServer;
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true, captureLogs: true });
    token = await service.rootToken();
    stores = await openStores(service);
    await definePolicy(service, CONSENT, [{ name: 'Consent', key: 'consent', action_type: 'consent' }]);
    await definePolicy(service, CORRECT, [
      { name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.email'] },
    ]);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions.map((action) => ({ ...action, identity_inputs: ASK_PHONE })),
        { policy_key: CONSENT, title: 'Consent', description: '', identity_inputs: ASK_PHONE },
        { policy_key: CORRECT, title: 'Correct', description: '', identity_inputs: ASK_PHONE },
      ],
    });
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const tag = () => randomUUID().slice(0, 8);

  /** A user in `crm` with an email, a phone, an SSN and a passport file. */
  const seedVictim = async (): Promise<Victim> => {
    const label = tag();
    const victim = {
      email: `victim.${label}@example.com`,
      phone: `+4477${String(randomInt(1e8)).padStart(8, '0')}`,
      userId: randomUUID(),
      values: [] as string[],
    };
    const ssn = `${randomInt(100, 999)}-${randomInt(10, 99)}-${randomInt(1000, 9999)}`;
    const created = await stores.crm.call('/api/entity/create', {
      json: [
        {
          id: victim.userId,
          name: 'users',
          attributes: [
            { name: 'email', value: victim.email },
            { name: 'phone', value: victim.phone },
            { name: 'ssn', value: ssn },
          ],
        },
      ],
    });
    assert.equal(created.status, 203, created.text);
    await uploadFile(stores.crm, victim.userId, 'passport', `passport of victim ${label}`);
    victim.values = [victim.email, victim.phone, ssn, `passport of victim ${label}`];
    return victim;
  };

  /**
   * The attack up to the agent's verified code: a stranger as agent, their own second address as the
   * subject, the victim's phone beside it. Answers the request and the stranger's "subject" address.
   */
  const submitAsAgent = async (policyKey: string, phone: string, extra: Record<string, unknown> = {}) => {
    const label = tag();
    const agent = `stranger.${label}@example.net`;
    const subject = `stranger.second.${label}@example.org`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: policyKey,
        identity: { email: subject, phone_number: phone },
        agent: { name: 'Stranger', email: agent },
        ...extra,
      },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', agent)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
    return { id, subject };
  };

  /** The stranger clicks the confirm-agent link mailed to their own second address. */
  const confirmOwnLink = async (subject: string) => {
    const link = confirmLinkIn(await mail.waitFor(isKind('confirm who acts for you', subject)));
    const confirmed = await fetch(link, { method: 'POST', headers: { origin: service.url } });
    assert.equal(confirmed.status, 200, await confirmed.text());
  };

  const attack = async (policyKey: string, phone: string, extra: Record<string, unknown> = {}) => {
    const { id, subject } = await submitAsAgent(policyKey, phone, extra);
    await confirmOwnLink(subject);
    return { id, subject };
  };

  const approveIfPending = async (id: string) => {
    for (let tries = 0; tries < 100; tries++) {
      const status = (await getRequest(service, id)).status;
      if (status === 'pending') {
        const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
          token,
          json: { request_ids: [id] },
        });
        assert.equal(approved.status, 200, approved.text);
        return;
      }
      if (status !== 'identity_unverified') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('access: the package holds nothing of the victim; the phone is shown as unproven', async () => {
    const victim = await seedVictim();
    const { id, subject } = await attack('default_access_policy', victim.phone);
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    const link = downloadLinkIn(await mail.waitFor(isKind('your request is complete', subject)));
    const download = await fetch(link);
    assert.equal(download.status, 200);
    const entries = await readZip(Buffer.from(await download.arrayBuffer()));
    const everything = [...entries.values()].map((bytes) => bytes.toString('utf8')).join('\n');
    for (const value of victim.values) assert.ok(!everything.includes(value), 'nothing of the victim');
    assert.ok(![...entries.keys()].some((name) => name.startsWith('files/')), 'no file of the victim');

    const view = await getRequest(service, id);
    assert.deepEqual(view.identity, { email: subject }, 'the link proved the address it went to');
    assert.deepEqual(view.unverified_identity, { phone_number: victim.phone }, 'the phone stays unproven');
  });

  it('consent: an opt-in through the agent path leaves the victim’s opt-out as it was', async () => {
    const victim = await seedVictim();
    const optOut = await submit(service, {
      policy_key: CONSENT,
      identity: { phone_number: victim.phone },
      consent_preferences: [{ data_use: 'marketing.advertising', opt_in: false }],
    });
    await waitForStatus(service, optOut.id, 'complete');
    const { id } = await attack(CONSENT, victim.phone, {
      consent_preferences: [{ data_use: 'marketing.advertising', opt_in: true }],
    });
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    const consent = await service.call(
      'GET',
      `/v1/consent?phone_number=${encodeURIComponent(victim.phone)}`,
      { token },
    );
    assert.equal(consent.status, 200, consent.text);
    assert.deepEqual(
      consent.body.preferences.map((p: { data_use: string; opt_in: boolean }) => [p.data_use, p.opt_in]),
      [['marketing.advertising', false]],
      'the victim is still opted out',
    );
    assert.ok(
      consent.body.history.every((p: { privacy_request_id: string }) => p.privacy_request_id !== id),
      'nothing recorded for the victim by the attack',
    );
  });

  it('erasure, even once an operator approves it: the victim’s attributes and file are intact', async () => {
    const victim = await seedVictim();
    const before = await attributesOf(stores.crm, victim.userId);
    const { id } = await attack('default_erasure_policy', victim.phone);
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    assert.deepEqual(await attributesOf(stores.crm, victim.userId), before);
    assert.equal((await entity(stores.crm, victim.userId)).files.length, 1, 'the file is still there');
  });

  it('correction, even once an operator approves it: the victim’s email is not rewritten', async () => {
    const victim = await seedVictim();
    const before = await attributesOf(stores.crm, victim.userId);
    const { id } = await attack(CORRECT, victim.phone, {
      corrections: [{ attribute: 'users.email', value: `rewritten.${tag()}@example.org` }],
    });
    const preview = await service.call('GET', `/v1/privacy-request/${id}/corrections`, { token });
    assert.equal(preview.status, 200, preview.text);
    assert.deepEqual(preview.body.changes, [], 'the reviewer is shown no entity of the victim');
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    assert.deepEqual(await attributesOf(stores.crm, victim.userId), before);
  });

  it('a power of attorney establishes the identities the operator names, audited with their name', async () => {
    const victim = await seedVictim();
    const { id, subject } = await submitAsAgent('default_access_policy', victim.phone);
    const foreign = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: 'a signed power of attorney', identities: ['loyalty_id'] },
    });
    assert.equal(foreign.status, 422, foreign.text);
    assert.match(foreign.body.detail, /loyalty_id, which request .* does not carry/);
    const unchanged = await getRequest(service, id);
    assert.equal(unchanged.status, 'identity_unverified', 'nothing changed');
    assert.deepEqual(unchanged.identity, {});
    assert.equal(
      (await service.call('GET', `/v1/privacy-request/${id}/agent`, { token })).body.authorization,
      null,
    );
    assert.ok(!(await logOf(service, id)).some((entry) => /power of attorney/.test(entry.message ?? '')));

    const accepted = await service.call('POST', `/v1/privacy-request/${id}/agent/accept`, {
      token,
      json: { reason: 'a signed power of attorney naming the subject’s email only', identities: [] },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.deepEqual(accepted.body.identity, { email: subject });
    assert.deepEqual(accepted.body.unverified_identity, { phone_number: victim.phone });
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    const link = downloadLinkIn(await mail.waitFor(isKind('your request is complete', subject)));
    const entries = await readZip(Buffer.from(await (await fetch(link)).arrayBuffer()));
    const everything = [...entries.values()].map((bytes) => bytes.toString('utf8')).join('\n');
    for (const value of victim.values) assert.ok(!everything.includes(value), 'nothing of the victim');

    // A document that does name the phone: the operator says so, and it is trusted on their word.
    const named = await submitAsAgent('default_access_policy', victim.phone);
    const establishing = await service.call('POST', `/v1/privacy-request/${named.id}/agent/accept`, {
      token,
      json: { reason: 'the power of attorney names this phone number', identities: ['phone_number'] },
    });
    assert.equal(establishing.status, 200, establishing.text);
    assert.deepEqual(establishing.body.identity, { email: named.subject, phone_number: victim.phone });
    assert.deepEqual(establishing.body.unverified_identity, {});
    const shown = await service.call('GET', `/v1/privacy-request/${named.id}/agent`, { token });
    assert.deepEqual(shown.body.identities, ['phone_number']);
    assert.equal(shown.body.authorized_by, 'root-test-client');
    const audit = await service.services.db.query<{ details: Record<string, unknown> }>(
      `SELECT details FROM audit_log WHERE action = 'privacy-request.agent.accept'
        AND details->>'privacy_request_id' = $1`,
      [named.id],
    );
    assert.deepEqual(audit.rows[0]?.details.identities, ['phone_number']);
    assert.equal(audit.rows[0]?.details.operator, 'root-test-client');
  });

  it("the agent path counts against the subject's mail caps", async () => {
    const label = tag();
    const subject = `capped.${label}@example.org`;
    const asAgent = (n: number) =>
      service.call('POST', '/v1/privacy-center/privacy-request', {
        json: {
          policy_key: 'default_access_policy',
          identity: { email: subject },
          agent: { name: 'Stranger', email: `stranger.${n}.${label}@example.net` },
        },
      });
    // At most 3 open unverified requests per subject address, whoever's agent made them.
    const ids: string[] = [];
    for (let n = 0; n < 3; n++) {
      const answer = await asAgent(n);
      assert.equal(answer.status, 200, answer.text);
      ids.push(answer.body.id);
    }
    const fourth = await asAgent(3);
    assert.equal(fourth.status, 429, fourth.text);
    assert.match(fourth.body.detail, /awaiting verification/);

    // The subject's address had its 5 mails of the hour: the confirm-agent link is not sent, the agent's
    // code is refused with a wait (nothing changes; it works again later).
    const index = recipientIndex(service.services.keyring, subject);
    for (let n = 0; n < 5; n++)
      await service.services.db.query('INSERT INTO verification_code_mails (recipient_index) VALUES ($1)', [
        index,
      ]);
    const agent = `stranger.0.${label}@example.net`;
    const code = codeIn(await mail.waitFor(isKind('your verification code', agent)));
    const verified = await service.call('POST', `/v1/privacy-request/${ids[0]}/verify`, { json: { code } });
    assert.equal(verified.status, 429, verified.text);
    assert.match(verified.body.detail, /Too many messages were sent to this address/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal(mail.mailsTo(subject).length, 0, 'no mail reached the subject');
    assert.equal((await getRequest(service, ids[0] as string)).status, 'identity_unverified');
  });
});
