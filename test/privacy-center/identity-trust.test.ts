// Whom Lethe acts for (issue 22): a stranger who gives their own email and a victim's phone number on the
// public page, and verifies with the code mailed to their own address, gets nothing of the victim and
// erases nothing of them. Real app, real SMTP receiver for the codes, a real datastore holding a victim
// with a phone number, an SSN and a file; real webhook receiver for the callbacks. The phone stays in the
// request's unverified identity: shown to operators, sent to callbacks apart, never matched.
import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  attributesOf,
  entity,
  openStores,
  type Stores,
  uploadFile,
} from '../privacy-requests/rule-support.ts';
import { sealIdentity } from '../../src/privacy-requests/identity.ts';
import { givenByOperator } from '../../src/privacy-requests/trusted-identity.ts';
import {
  connectionTo,
  getRequest,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';
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

/** The default actions, each asking for an optional phone number besides the email. */
const WITH_PHONE = {
  ...DEFAULT_ACTIONS,
  actions: DEFAULT_ACTIONS.actions.map((action) => ({
    ...action,
    identity_inputs: { email: 'required', phone_number: 'optional' },
  })),
};

/** The same and an access action whose policy calls a pre-execution webhook. */
const ACTIONS = {
  ...WITH_PHONE,
  actions: [
    ...WITH_PHONE.actions,
    {
      policy_key: 'hooked_access',
      title: 'Access with a webhook',
      description: 'An access request that calls a webhook before it runs.',
      identity_inputs: { email: 'required', phone_number: 'optional' },
    },
  ],
};

interface Victim {
  email: string;
  phone: string;
  ssn: string;
  userId: string;
  values: string[];
}

/** A user in `crm` with an email, a phone number, an SSN and a file (its content is personal too). */
async function seedVictim(stores: Stores): Promise<Victim> {
  const tag = randomUUID().slice(0, 8);
  const victim: Victim = {
    email: `victim.${tag}@example.com`,
    phone: `+4479${String(randomInt(1e8)).padStart(8, '0')}`,
    ssn: `${randomInt(100, 999)}-${randomInt(10, 99)}-${randomInt(1000, 9999)}`,
    userId: randomUUID(),
    values: [],
  };
  const created = await stores.crm.call('/api/entity/create', {
    json: [
      {
        id: victim.userId,
        name: 'users',
        attributes: [
          { name: 'email', value: victim.email },
          { name: 'phone', value: victim.phone },
          { name: 'ssn', value: victim.ssn },
          { name: 'name', value: `Victim ${tag}` },
        ],
      },
    ],
  });
  assert.equal(created.status, 203, created.text);
  await uploadFile(stores.crm, victim.userId, 'passport', `passport scan of victim ${tag}`);
  victim.values = [victim.email, victim.phone, victim.ssn, `Victim ${tag}`, `passport scan of victim ${tag}`];
  return victim;
}

describe('a stranger claiming a victim’s phone number on the public page', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  let stores: Stores;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true, captureLogs: true });
    stores = await openStores(service);
    await policyWithWebhooks(service, receiver, 'hooked_access', [{ key: 'pre_hook', direction: 'one_way' }]);
    await publishDefaults(service, ACTIONS);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  /** Submits `identity` for `policyKey` on the public API and verifies with the code mailed to the email. */
  const submitAndVerify = async (policyKey: string, identity: Record<string, string>) => {
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: policyKey, identity },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', identity.email as string)));
    const verified = await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } });
    assert.equal(verified.status, 200, verified.text);
    return id;
  };

  const approveIfPending = async (id: string) => {
    if ((await getRequest(service, id)).status !== 'pending') return;
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: await service.rootToken(),
      json: { request_ids: [id] },
    });
    assert.equal(approved.status, 200, approved.text);
  };

  it('access: the download link holds nothing of the victim', async () => {
    const victim = await seedVictim(stores);
    const attacker = `attacker.${randomUUID().slice(0, 8)}@example.net`;
    const id = await submitAndVerify('default_access_policy', {
      email: attacker,
      phone_number: victim.phone,
    });
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');

    const link = downloadLinkIn(await mail.waitFor(isKind('your request is complete', attacker)));
    const download = await fetch(link);
    assert.equal(download.status, 200);
    const entries = await readZip(Buffer.from(await download.arrayBuffer()));
    const everything = [...entries.values()].map((bytes) => bytes.toString('utf8')).join('\n');
    for (const value of victim.values)
      assert.ok(!everything.includes(value), 'the package holds no value of the victim');
    assert.ok(![...entries.keys()].some((name) => name.startsWith('files/')), 'no file of the victim');

    const view = await getRequest(service, id);
    assert.deepEqual(view.identity, { email: attacker });
    assert.deepEqual(view.unverified_identity, { phone_number: victim.phone });
  });

  it('erasure, even once an operator approves it: the victim’s attributes and file are intact', async () => {
    const victim = await seedVictim(stores);
    const before = await attributesOf(stores.crm, victim.userId);
    const attacker = `eraser.${randomUUID().slice(0, 8)}@example.net`;
    const id = await submitAndVerify('default_erasure_policy', {
      email: attacker,
      phone_number: victim.phone,
    });
    await approveIfPending(id);
    await waitForStatus(service, id, 'complete');
    assert.deepEqual(await attributesOf(stores.crm, victim.userId), before);
    assert.equal((await entity(stores.crm, victim.userId)).files.length, 1, 'the file is still there');
  });

  it('callbacks carry the phone in unverified_identity, not in identity; an operator’s request is unchanged', async () => {
    const email = `hooked.${randomUUID().slice(0, 8)}@example.com`;
    const phone = `+4478${String(randomInt(1e8)).padStart(8, '0')}`;
    const id = await submitAndVerify('hooked_access', { email, phone_number: phone });
    await waitForStatus(service, id, 'complete');
    const call = receiver.callsTo('/pre_hook').find((candidate) => candidate.body.privacy_request_id === id);
    assert.ok(call, 'the pre-execution webhook was called');
    assert.deepEqual(call.body.identity, { email });
    assert.deepEqual(call.body.unverified_identity, { phone_number: phone });
    assert.ok(!JSON.stringify(call.body.identity).includes(phone));

    const operator = await submit(service, {
      policy_key: 'hooked_access',
      identity: { email: `op.${email}`, phone_number: phone },
    });
    assert.deepEqual(operator.unverified_identity, {});
    await waitForStatus(service, operator.id, 'complete');
    const trusted = receiver
      .callsTo('/pre_hook')
      .find((candidate) => candidate.body.privacy_request_id === operator.id);
    assert.ok(trusted);
    assert.deepEqual(trusted.body.identity, { email: `op.${email}`, phone_number: phone });
    assert.ok(!('unverified_identity' in trusted.body), 'the seed’s body, without unverified_identity');
  });

  it('before its code, every public value is unverified; the log and process log hold none of them', async () => {
    const email = `pending.${randomUUID().slice(0, 8)}@example.com`;
    const phone = `+4476${String(randomInt(1e8)).padStart(8, '0')}`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email, phone_number: phone } },
    });
    assert.equal(submitted.status, 200, submitted.text);
    const view = await getRequest(service, submitted.body.id);
    assert.deepEqual(view.identity, {});
    assert.deepEqual(view.unverified_identity, { email, phone_number: phone });
    const log = JSON.stringify(await logOf(service, submitted.body.id));
    for (const value of [email, phone]) {
      assert.ok(!log.includes(value), 'the request log holds no identity');
      assert.ok(!service.logLines.join('\n').includes(value), 'the process log holds no identity');
    }
  });

  it('a verified public erasure waits for an operator; a public access request goes on', async () => {
    const email = `own.${randomUUID().slice(0, 8)}@example.com`;
    const erasure = await submitAndVerify('default_erasure_policy', { email });
    const access = await submitAndVerify('default_access_policy', { email: `a.${email}` });
    await waitForStatus(service, access, 'complete');
    assert.equal((await getRequest(service, erasure)).status, 'pending');
    const log = await logOf(service, erasure);
    assert.ok(
      log.some((entry: { message?: string }) => /awaits an operator/.test(entry.message ?? '')),
      JSON.stringify(log),
    );
  });
});

describe('public erasure with LETHE_PUBLIC_ERASURE_AUTO_APPROVE', () => {
  let mail: MailServer;
  let service: TestService;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { publicErasureAutoApprove: true }), {
      worker: true,
    });
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  it('is approved without an operator', async () => {
    const email = `auto.${randomUUID().slice(0, 8)}@example.com`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_erasure_policy', identity: { email } },
    });
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    const id = submitted.body.id as string;
    assert.equal(
      (await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } })).status,
      200,
    );
    await waitForStatus(service, id, 'complete');
  });
});

describe('with LETHE_SUBJECT_IDENTITY_VERIFICATION_REQUIRED=false', () => {
  let service: TestService;
  let stores: Stores;
  before(async () => {
    service = await startTestService(subjectSideConfig(undefined, { identityVerificationRequired: false }), {
      worker: true,
    });
    stores = await openStores(service);
    await publishDefaults(service, WITH_PHONE);
  });
  after(async () => service.stop());

  it('public values are kept unverified and match nothing: the victim’s own email and phone erase nothing', async () => {
    const victim = await seedVictim(stores);
    const before = await attributesOf(stores.crm, victim.userId);
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: 'default_erasure_policy',
        identity: { email: victim.email, phone_number: victim.phone },
      },
    });
    assert.equal(answer.status, 200, answer.text);
    const id = answer.body.id as string;
    const view = await getRequest(service, id);
    assert.deepEqual(view.identity, {});
    assert.deepEqual(view.unverified_identity, { email: victim.email, phone_number: victim.phone });
    assert.equal(view.status, 'pending', 'a public erasure waits for an operator');
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token: await service.rootToken(),
      json: { request_ids: [id] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, id, 'complete');
    assert.deepEqual(await attributesOf(stores.crm, victim.userId), before);
    assert.equal((await entity(stores.crm, victim.userId)).files.length, 1);
  });
});

describe('a public erasure with a pre-approval webhook', () => {
  let mail: MailServer;
  let receiver: Receiver;
  let service: TestService;
  before(async () => {
    mail = await startMailServer();
    receiver = await startReceiver();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    await connectionTo(service, 'screening', `${receiver.url}/screening`);
    const put = await service.call('PUT', '/v1/pre_approval_webhook', {
      token: await service.rootToken(),
      json: [{ connection_config_key: 'screening', key: 'screening', name: 'Screening' }],
    });
    assert.equal(put.status, 200, put.text);
    await publishDefaults(service, WITH_PHONE);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
    await mail.close();
  });

  it('gets the phone apart, and an all-eligible answer does not approve it: an operator must', async () => {
    const email = `screened.${randomUUID().slice(0, 8)}@example.com`;
    const phone = `+4475${String(randomInt(1e8)).padStart(8, '0')}`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_erasure_policy', identity: { email, phone_number: phone } },
    });
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    assert.equal(
      (await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } })).status,
      200,
    );
    const deadline = Date.now() + 20_000;
    let call = receiver.callsTo('/screening').find((found) => found.body.privacy_request_id === id);
    while (!call && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      call = receiver.callsTo('/screening').find((found) => found.body.privacy_request_id === id);
    }
    assert.ok(call, 'the pre-approval webhook was called');
    assert.deepEqual(call.body.identity, { email });
    assert.deepEqual(call.body.unverified_identity, { phone_number: phone });
    const eligible = await service.call('POST', `/v1/privacy-request/${id}/pre-approve/eligible`, {
      headers: { authorization: `Bearer ${String(call.headers['reply-to-token'])}` },
    });
    assert.equal(eligible.status, 200, eligible.text);
    assert.equal((await getRequest(service, id)).status, 'pending');
    const log = await logOf(service, id);
    assert.ok(
      log.some((entry: { message?: string }) => /awaits an operator/.test(entry.message ?? '')),
      JSON.stringify(log),
    );
  });

  it('a request received before migration 015 (every value in identity) keeps only its email trusted', async () => {
    const email = `legacy.${randomUUID().slice(0, 8)}@example.com`;
    const phone = `+4474${String(randomInt(1e8)).padStart(8, '0')}`;
    const submitted = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email, phone_number: phone } },
    });
    const id = submitted.body.id as string;
    const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
    // What a public request looked like before: both values in identity, nothing apart.
    await service.services.db.query(
      'UPDATE privacy_requests SET identity_sealed = $2, unverified_identity_sealed = NULL WHERE id = $1',
      [id, sealIdentity(service.services.keyring, id, givenByOperator({ email, phone_number: phone }))],
    );
    assert.equal(
      (await service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code } })).status,
      200,
    );
    const view = await getRequest(service, id);
    assert.deepEqual(view.identity, { email });
    assert.deepEqual(view.unverified_identity, { phone_number: phone });
  });
});
