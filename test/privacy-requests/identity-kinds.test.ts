// Whom a privacy request acts for (docs/decisions.md#whom-lethe-acts-for): an identity value matches an
// entity only through an attribute of its own kind, declared by the datastore or, without a declaration,
// named `email`, `phone_number` or `phone`. Before, any attribute holding the same text matched: whoever
// typed an address found in someone's `notes` got (or erased) that entity.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import type { ApiClient } from '../helpers/area-b.ts';
import { attributesOf, definePolicy, openStores, seedSubject, type Stores } from './rule-support.ts';
import { engineConfig, submit, waitForStatus } from './support.ts';

describe('matching a privacy request by identity kind', () => {
  let service: TestService;
  let stores: Stores;
  before(async () => {
    service = await startTestService(engineConfig, { worker: true });
    stores = await openStores(service);
    await definePolicy(service, 'kind_access', [{ name: 'All', key: 'all', action_type: 'access' }]);
    await definePolicy(service, 'kind_erasure', [
      { name: 'Blank', key: 'blank', action_type: 'erasure', masking_strategy: { strategy: 'nullify' } },
    ]);
  });
  after(() => service.stop());

  async function create(client: ApiClient, name: string, attributes: Record<string, string>) {
    const id = randomUUID();
    const answer = await client.call('/api/entity/create', {
      json: [
        { id, name, attributes: Object.entries(attributes).map(([key, value]) => ({ name: key, value })) },
      ],
    });
    assert.equal(answer.status, 203, answer.text);
    assert.equal(answer.body[0].error, null, answer.text);
    return id;
  }

  /** The text of the access results of a completed access request made with `identity`. */
  async function accessResults(identity: Record<string, unknown>): Promise<string> {
    const created = await submit(service, { policy_key: 'kind_access', identity });
    await waitForStatus(service, created.id, 'complete');
    const results = await service.call('GET', `/v1/privacy-request/${created.id}/access-results`, {
      token: await service.rootToken(),
    });
    assert.equal(results.status, 200, results.text);
    return results.text;
  }

  async function erase(identity: Record<string, unknown>): Promise<void> {
    const created = await submit(service, { policy_key: 'kind_erasure', identity });
    await waitForStatus(service, created.id, 'complete');
  }

  async function declare(datastore: string, identities: Record<string, string[]>) {
    const answer = await service.call('PUT', `/v1/datastore/${datastore}/identities`, {
      token: await service.rootToken(),
      json: identities,
    });
    assert.equal(answer.status, 200, answer.text);
  }

  it('does not give nor erase an entity whose notes hold the email, until notes is declared an email', async () => {
    const subject = await seedSubject(stores, 'nora');
    // Somebody else's ticket that mentions the subject's address in free text, and a referral field.
    const ticket = await create(stores.crm, 'tickets', { notes: subject.email, owner: 'someone else' });
    const referral = await create(stores.crm, 'referrals', { referrer_email: subject.email, code: 'R1' });

    const before = await accessResults({ email: subject.email });
    assert.ok(before.includes(subject.crm.userId), 'the email attribute matches by default');
    assert.ok(before.includes(subject.shop.customerId), 'in every datastore');
    assert.equal(before.includes(ticket), false, 'an email in notes is no match');
    assert.equal(before.includes(referral), false, 'nor in referrer_email');

    await erase({ email: subject.email });
    assert.equal((await attributesOf(stores.crm, subject.crm.userId)).email, null, 'the subject was erased');
    assert.deepEqual(await attributesOf(stores.crm, ticket), { notes: subject.email, owner: 'someone else' });
    assert.deepEqual(await attributesOf(stores.crm, referral), { referrer_email: subject.email, code: 'R1' });

    await declare('crm', { email: ['users.email', 'tickets.notes'] });
    const declared = await accessResults({ email: subject.email.toUpperCase() });
    assert.ok(declared.includes(ticket), 'a declared email attribute matches, in any case');
    assert.equal(declared.includes(referral), false, 'an undeclared one still does not');
    await erase({ email: subject.email });
    assert.deepEqual(await attributesOf(stores.crm, ticket), { notes: null, owner: null });
    assert.deepEqual(await attributesOf(stores.crm, referral), { referrer_email: subject.email, code: 'R1' });
    await declare('crm', {});
  });

  it('matches phone numbers through phone and phone_number by default, never through an email attribute', async () => {
    const phone = `+3361${String(Date.now()).slice(-7)}`;
    const viaPhone = await create(stores.shop, 'contacts', { phone });
    const viaPhoneNumber = await create(stores.shop, 'accounts', { phone_number: phone });
    const elsewhere = await create(stores.shop, 'memos', { email: phone, body: phone });
    const text = await accessResults({ phone_number: phone });
    assert.ok(text.includes(viaPhone) && text.includes(viaPhoneNumber), text);
    assert.equal(text.includes(elsewhere), false, 'a phone number in another kind of attribute is no match');
  });

  it('matches a custom identity only through the attributes declared for its key', async () => {
    const loyalty = `L-${randomUUID().slice(0, 8)}`;
    const email = `cust.${randomUUID().slice(0, 8)}@example.com`;
    const customer = await create(stores.shop, 'loyalty_members', { loyalty_id: loyalty, email });
    const identity = { loyalty: { label: 'Loyalty number', value: loyalty } };
    assert.equal((await accessResults(identity)).includes(customer), false, 'not declared: no match');

    await declare('shop', { loyalty: ['loyalty_members.loyalty_id'] });
    assert.ok((await accessResults(identity)).includes(customer), 'declared under the key: a match');
    // A declaration replaces the default: the shop declares no email attribute, so an email finds nothing.
    assert.equal((await accessResults({ email })).includes(customer), false);
    // Declared under the label instead of the key: no match (the kind is the identity's key).
    await declare('shop', { Loyalty_number: ['loyalty_members.loyalty_id'] });
    assert.equal((await accessResults(identity)).includes(customer), false);
    await declare('shop', {});
    assert.ok((await accessResults({ email })).includes(customer), 'back to the default');
  });
});
