// The rules step inside a request: access and erasure over the subject data store, reached with the
// request's identities, including one a two_way webhook derived.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Contract, type OpenApi } from '../helpers/openapi-contract.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { attributesOf, auditOf, definePolicy, openStores, seedSubject, type Stores } from './rule-support.ts';
import {
  connectionTo,
  engineConfig,
  logOf,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('the datastore run of a privacy request', () => {
  let service: TestService;
  let receiver: Receiver;
  let stores: Stores;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    stores = await openStores(service);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('collects the subject entity trees of every datastore into the access results', async () => {
    const subject = await seedSubject(stores, 'ada');
    const bystander = await seedSubject(stores, 'bob');
    await definePolicy(service, 'engine_access', [{ name: 'All', key: 'all', action_type: 'access' }]);
    const created = await submit(service, {
      policy_key: 'engine_access',
      identity: { email: subject.email.toLowerCase() },
    });
    await waitForStatus(service, created.id, 'complete');
    const results = await service.call('GET', `/v1/privacy-request/${created.id}/access-results`, {
      token: await service.rootToken(),
    });
    assert.equal(results.status, 200, results.text);
    for (const id of [subject.crm.userId, subject.crm.replyId, subject.shop.orderId]) {
      assert.ok(results.text.includes(id), `the package holds ${id}`);
    }
    assert.equal(results.text.includes(bystander.crm.userId), false);
    // The document types the package (a named schema a client generator can use), and the answer fits it.
    const document = (await service.call('GET', '/openapi.json')).body as OpenApi;
    const documented = document.paths['/v1/privacy-request/{id}/access-results']!.get!.responses['200']!;
    assert.deepEqual(documented.content!['application/json']!.schema, {
      $ref: '#/components/schemas/AccessPackage',
    });
    assert.equal(document.components.schemas.AccessPackage!.additionalProperties, false);
    new Contract(document).check('GET', `/v1/privacy-request/${created.id}/access-results`, results);
    assert.equal(results.body.datastores.length > 0, true);
    const rules = (await logOf(service, created.id)).find((entry) => entry.kind === 'rules');
    assert.equal(rules.message, 'policy rules ran');
    assert.equal(JSON.stringify(rules.details).includes(subject.email), false, 'the summary has no values');
  });

  it('erases through an identity a two_way webhook derived', async () => {
    const subject = await seedSubject(stores, 'cleo');
    const bystander = await seedSubject(stores, 'dan');
    await definePolicy(service, 'engine_erasure', [
      { name: 'Blank', key: 'blank', action_type: 'erasure', masking_strategy: { strategy: 'nullify' } },
    ]);
    await connectionTo(service, 'enricher', `${receiver.url}/enrich`);
    receiver.on('/enrich', () => ({ body: { derived_identity: { phone_number: subject.phone } } }));
    const put = await service.call('PUT', '/v1/policy/engine_erasure/webhook/pre_execution', {
      token: await service.rootToken(),
      json: [{ connection_config_key: 'enricher', direction: 'two_way', key: 'enrich', name: 'Enrich' }],
    });
    assert.equal(put.status, 200, put.text);

    const created = await submit(service, {
      policy_key: 'engine_erasure',
      identity: { email: 'nobody-knows-this@example.com' },
    });
    await waitForStatus(service, created.id, 'complete');
    const user = await attributesOf(stores.crm, subject.crm.userId);
    assert.equal(user.email, null);
    assert.equal(user.phone, null);
    const untouched = await attributesOf(stores.crm, bystander.crm.userId);
    assert.equal(untouched.email, bystander.email);
    const audit = await auditOf(service, created.id);
    assert.ok(audit.items.length > 0, 'the erasure is in the audit log under the request id');
    assert.equal(audit.text.includes(subject.phone), false);
  });
});
