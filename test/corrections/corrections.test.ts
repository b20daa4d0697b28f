// Corrections (GDPR art. 16) over the real service, the real subject store and a real webhook receiver:
// corrections are checked against the attributes the update rule publishes (its targets: any other gets
// one refusal, whether a datastore holds it or not), a correction always waits for an operator, who reads its before/after and approves; the run writes the
// values to the matched entities (sealed, audited without the values) and passes them to the webhooks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { attributesOf, openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import {
  engineConfig,
  getRequest,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

const POLICY = 'rectify';

describe('corrections', () => {
  let receiver: Receiver;
  let service: TestService;
  let stores: Stores;
  let token: string;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true, captureLogs: true });
    token = await service.rootToken();
    stores = await openStores(service);
    await policyWithWebhooks(service, receiver, POLICY, [{ key: 'crm_mirror', direction: 'one_way' }]);
    const rule = await service.call('PATCH', `/v1/dsr/policy/${POLICY}/rule`, {
      token,
      json: [
        {
          name: 'Correct',
          key: 'correct',
          action_type: 'update',
          targets: ['users.name', 'customers.*'],
        },
      ],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('waits for an operator, shows before and after, writes sealed and audited, and tells the webhooks', async () => {
    const subject = await seedSubject(stores, 'cora');
    const before = await attributesOf(stores.crm, subject.crm.userId);
    const created = await submit(service, {
      policy_key: POLICY,
      identity: { email: subject.email },
      corrections: [
        { attribute: 'users.name', value: 'Cora Corrected' },
        { attribute: 'customers.address', value: '1 New Road' },
      ],
    });
    const id = created.id as string;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal((await getRequest(service, id)).status, 'pending', 'a correction waits for a person');
    assert.equal(receiver.callsTo('/crm_mirror').length, 0);
    assert.equal(
      (await attributesOf(stores.crm, subject.crm.userId)).name,
      before.name,
      'nothing written yet',
    );

    const preview = await service.call('GET', `/v1/privacy-request/${id}/corrections`, { token });
    assert.equal(preview.status, 200, preview.text);
    const byAttribute = new Map(
      preview.body.changes.map((change: { attribute: string }) => [change.attribute, change]),
    );
    assert.deepEqual(byAttribute.get('users.name'), {
      datastore: 'crm',
      entity_id: subject.crm.userId,
      attribute: 'users.name',
      before: before.name,
      after: 'Cora Corrected',
    });
    assert.equal((byAttribute.get('customers.address') as { after: string }).after, '1 New Road');

    const stored = await service.services.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM privacy_requests WHERE id = $1 AND position($2::bytea IN corrections_sealed) > 0`,
      [id, Buffer.from('Cora Corrected')],
    );
    assert.equal(stored.rows[0]?.n, 0, 'the corrections are sealed at rest');

    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [id] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, id, 'complete');

    const after = await attributesOf(stores.crm, subject.crm.userId);
    assert.equal(after.name, 'Cora Corrected');
    assert.equal(after.email, before.email, 'other attributes unchanged');
    assert.equal((await attributesOf(stores.shop, subject.shop.customerId)).address, '1 New Road');
    assert.equal(
      (await attributesOf(stores.shop, subject.shop.orderId)).address,
      subject.values[6],
      'only the table named is corrected',
    );

    const [call] = receiver.callsTo('/crm_mirror');
    assert.ok(call);
    assert.deepEqual(call.body.corrections, [
      { attribute: 'users.name', value: 'Cora Corrected' },
      { attribute: 'customers.address', value: '1 New Road' },
    ]);

    const audit = await service.services.db.query<{ datastore: string; details: Record<string, unknown> }>(
      `SELECT datastore, details FROM audit_log WHERE action = 'privacy-request.correction' AND request_id = $1
        ORDER BY datastore`,
      [id],
    );
    assert.deepEqual(
      audit.rows.map((row) => [row.datastore, row.details.attributes, row.details.values_written]),
      [
        ['crm', ['users.name'], 1],
        ['shop', ['customers.address'], 1],
      ],
    );
    assert.ok(!JSON.stringify(audit.rows).includes('Cora Corrected'), 'no value in the audit log');
    const log = await logOf(service, id);
    assert.ok(!JSON.stringify(log).includes('Cora Corrected'), 'no value in the request log');
    assert.ok(!service.logLines.join('\n').includes('Cora Corrected'), 'no value in the process log');
  });

  it('refuses an unpublished target, naming it, and corrections without an update rule; stores nothing', async () => {
    await seedSubject(stores, 'dan');
    const count = async () =>
      (await service.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM privacy_requests'))
        .rows[0]?.n;
    const before = await count();
    const answer = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [
        {
          policy_key: POLICY,
          identity: { email: 'a@example.com' },
          corrections: [{ attribute: 'users.shoe_size', value: '9' }],
        },
        {
          policy_key: POLICY,
          identity: { email: 'a@example.com' },
          corrections: [{ attribute: 'nosuch.name', value: 'x' }],
        },
        {
          policy_key: POLICY,
          identity: { email: 'a@example.com' },
          corrections: [{ attribute: 'users', value: 'x' }],
        },
        { policy_key: POLICY, identity: { email: 'a@example.com' } },
        {
          policy_key: 'default_access_policy',
          identity: { email: 'a@example.com' },
          corrections: [{ attribute: 'users.name', value: 'x' }],
        },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.succeeded.length, 0);
    const messages = answer.body.failed.map((failure: { message: string }) => failure.message);
    assert.equal(messages[0], 'users.shoe_size cannot be corrected here.');
    assert.equal(messages[1], 'nosuch.name cannot be corrected here.');
    assert.match(messages[2], /attribute/);
    assert.match(
      messages[3],
      /corrections is required: policy \S+ corrects data, so name at least one attribute/,
    );
    assert.match(messages[4], /update rule/);
    assert.equal(await count(), before);

    // The privacy center takes corrections too (a verified subject asks; an operator still approves).
    await service.call('PUT', '/v1/privacy-center', {
      token,
      json: {
        title: 'Privacy',
        organization_name: 'Example Ltd',
        actions: [
          {
            policy_key: POLICY,
            title: 'Correct my data',
            description: '',
            identity_inputs: { email: 'required' },
          },
        ],
      },
    });
    const publicUnknown = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: POLICY,
        identity: { email: 'p@example.com' },
        corrections: [{ attribute: 'users.shoe_size', value: '9' }],
      },
    });
    assert.equal(publicUnknown.status, 422, publicUnknown.text);
    assert.equal(publicUnknown.body.detail, 'users.shoe_size cannot be corrected here.');
    const publicMissing = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: POLICY, identity: { email: 'p@example.com' } },
    });
    assert.equal(publicMissing.status, 422, publicMissing.text);
    assert.equal(await count(), before);
    const publicKnown = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: {
        policy_key: POLICY,
        identity: { email: 'p@example.com' },
        corrections: [{ attribute: 'users.name', value: 'P' }],
      },
    });
    assert.equal(publicKnown.status, 200, publicKnown.text);
    assert.equal(publicKnown.body.status, 'identity_unverified', 'a public correction needs the code');

    const none = await service.call(
      'GET',
      `/v1/privacy-request/pri_00000000-0000-4000-8000-000000000000/corrections`,
      {
        token,
      },
    );
    assert.equal(none.status, 404);
  });
});
