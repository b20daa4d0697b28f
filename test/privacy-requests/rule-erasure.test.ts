// Erasure rules over real datastores: every masking strategy with its targets, the blind index following
// the new values, bystanders untouched, the audit log without values, and reruns that change nothing.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { readAccessPackage } from '../../src/privacy-requests/rules/access-package.ts';
import { runPolicyRules } from '../../src/privacy-requests/rules/runner.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  attributesOf,
  auditOf,
  definePolicy,
  entity,
  idsByIdentity,
  openStores,
  requestId,
  seedSubject,
  type Stores,
  type Subject,
  uploadFile,
  operatorMatches,
} from './rule-support.ts';

const assertNoValue = (text: string, subject: Subject, where: string) => {
  for (const value of subject.values) assert.ok(!text.includes(value), `${where} must not hold ${value}`);
};

describe('erasure rules', () => {
  let service: TestService;
  let stores: Stores;
  before(async () => {
    service = await startTestService();
    stores = await openStores(service);
  });
  after(() => service.stop());

  const erase = (policyKey: string, subject: Subject, privacyRequestId = requestId()) =>
    runPolicyRules(service.services, {
      privacyRequestId,
      policyKey,
      identities: operatorMatches({ email: subject.email }),
    });

  /** Everything a subject has, read through the public API, to compare before and after. */
  const snapshot = async (subject: Subject) => ({
    user: await entity(stores.crm, subject.crm.userId),
    note: await entity(stores.crm, subject.crm.noteId),
    reply: await entity(stores.crm, subject.crm.replyId),
    customer: await entity(stores.shop, subject.shop.customerId),
    order: await entity(stores.shop, subject.shop.orderId),
  });

  it('nullify: targeted values become null, the rest and bystanders stay, the audit log has no value', async () => {
    await definePolicy(service, 'nullify_policy', [
      {
        name: 'Nullify',
        key: 'nullify_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'nullify' },
        targets: ['users.name', 'users.phone', 'orders.*'],
      },
    ]);
    const subject = await seedSubject(stores, 'nullified');
    const bystander = await seedSubject(stores, 'bystander');
    const untouched = await snapshot(bystander);
    const id = requestId();
    const summary = await erase('nullify_policy', subject, id);

    assert.deepEqual(summary.access, []);
    assert.deepEqual(summary.erasure, [
      {
        rule_key: 'nullify_rule',
        strategy: 'nullify',
        datastore: 'crm',
        matched_entities: 3,
        entities_targeted: 1,
        attributes_masked: 2,
        attributes_deleted: 0,
        files_deleted: 0,
        entities_forgotten: 0,
        already_applied: false,
      },
      {
        rule_key: 'nullify_rule',
        strategy: 'nullify',
        datastore: 'shop',
        matched_entities: 2,
        entities_targeted: 1,
        attributes_masked: 2,
        attributes_deleted: 0,
        files_deleted: 0,
        entities_forgotten: 0,
        already_applied: false,
      },
    ]);
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.userId), {
      email: subject.email,
      name: null,
      nickname: null,
      phone: null,
    });
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.noteId), { text: subject.values[4] });
    assert.deepEqual(await attributesOf(stores.shop, subject.shop.orderId), { address: null, total: null });
    assert.deepEqual(await attributesOf(stores.shop, subject.shop.customerId), {
      address: subject.values[6],
      email: subject.email.toLowerCase(),
    });
    assert.deepEqual(await idsByIdentity(stores.crm, subject.phone), [], 'a null value is found by nothing');
    assert.deepEqual(await idsByIdentity(stores.crm, subject.email), [subject.crm.userId]);
    assert.deepEqual(await snapshot(bystander), untouched);

    assertNoValue(JSON.stringify(summary), subject, 'the summary');
    const audit = await auditOf(service, id);
    assert.deepEqual(
      audit.items.map((entry) => [entry.action, entry.datastore, entry.entity_ids]),
      [
        ['privacy-request.erasure', 'crm', [subject.crm.userId]],
        ['privacy-request.erasure', 'shop', [subject.shop.orderId]],
      ],
    );
    assert.equal(audit.items[0]?.details.rule_key, 'nullify_rule');
    assert.equal(audit.items[0]?.details.attributes_masked, 2);
    assertNoValue(audit.text, subject, 'the audit log');
  });

  it('delete: targeted attributes and files are removed, the entities stay', async () => {
    await definePolicy(service, 'delete_policy', [
      {
        name: 'Delete',
        key: 'delete_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'delete' },
        targets: ['users.phone', 'users.avatar', 'notes.*', 'customers.address'],
      },
    ]);
    const subject = await seedSubject(stores, 'deleted');
    await uploadFile(stores.crm, subject.crm.userId, 'avatar', 'face');
    await uploadFile(stores.crm, subject.crm.userId, 'passport', 'scan');
    const summary = await erase('delete_policy', subject);
    assert.deepEqual(
      summary.erasure.map((entry) => [entry.datastore, entry.attributes_deleted, entry.files_deleted]),
      [
        ['crm', 2, 1],
        ['shop', 1, 0],
      ],
    );
    const user = await entity(stores.crm, subject.crm.userId);
    assert.deepEqual(
      user.attributes.map((attribute) => attribute.name),
      ['email', 'name', 'nickname'],
    );
    assert.deepEqual(
      user.files.map((file) => file.name),
      ['passport'],
    );
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.noteId), {});
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.replyId), { text: subject.values[5] });
    assert.deepEqual(await attributesOf(stores.shop, subject.shop.customerId), {
      email: subject.email.toLowerCase(),
    });
    const download = await stores.crm.call(
      `/api/file/download?entityID=${subject.crm.userId}&attributeName=avatar`,
      { method: 'GET' },
    );
    assert.equal(download.status, 404);
  });

  it('hash: HMAC-SHA-256 hex under the masking key (salted when configured); the old email finds nothing', async () => {
    await definePolicy(service, 'hash_policy', [
      {
        name: 'Hash emails',
        key: 'hash_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'hash' },
        targets: ['users.email', 'customers.email'],
      },
      {
        name: 'Hash names with salt',
        key: 'salted_hash_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'hash', configuration: { salt: 'pepper' } },
        targets: ['users.name'],
      },
    ]);
    const subject = await seedSubject(stores, 'hashed');
    const summary = await erase('hash_policy', subject);
    const masking = service.services.keyring.key('masking-hash');
    const hmac = (key: Buffer, value: string) => createHmac('sha256', key).update(value).digest('hex');
    const salted = createHmac('sha256', masking).update('salt:pepper').digest();

    const user = await attributesOf(stores.crm, subject.crm.userId);
    assert.equal(user.email, hmac(masking, subject.email));
    assert.equal(user.name, hmac(salted, subject.values[3] as string));
    assert.notEqual(user.name, hmac(masking, subject.values[3] as string));
    assert.equal(user.phone, subject.phone);
    const customer = await attributesOf(stores.shop, subject.shop.customerId);
    assert.equal(customer.email, hmac(masking, subject.email.toLowerCase()));
    assert.match(customer.email as string, /^[0-9a-f]{64}$/);

    assert.deepEqual(await idsByIdentity(stores.crm, subject.email), []);
    assert.deepEqual(await idsByIdentity(stores.shop, subject.email), []);
    assert.deepEqual(await idsByIdentity(stores.crm, user.email as string), [subject.crm.userId]);
    // The second rule still reached the user although the first had already hashed the matching email.
    assert.deepEqual(
      summary.erasure.map((entry) => [entry.rule_key, entry.datastore, entry.attributes_masked]),
      [
        ['hash_rule', 'crm', 1],
        ['salted_hash_rule', 'crm', 1],
        ['hash_rule', 'shop', 1],
        ['salted_hash_rule', 'shop', 0],
      ],
    );
  });

  it('random_string: crypto-random letters and digits of the configured length (30 by default)', async () => {
    await definePolicy(service, 'random_policy', [
      {
        name: 'Random names',
        key: 'random_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'random_string', configuration: { length: 12 } },
        targets: ['users.name', 'users.nickname'],
      },
      {
        name: 'Random texts',
        key: 'random_default_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'random_string' },
        targets: ['notes.text', 'replies.text'],
      },
    ]);
    const subject = await seedSubject(stores, 'randomised');
    const other = await seedSubject(stores, 'randomised');
    await erase('random_policy', subject);
    await erase('random_policy', other);
    const user = await attributesOf(stores.crm, subject.crm.userId);
    assert.match(user.name as string, /^[A-Za-z0-9]{12}$/);
    assert.equal(user.nickname, null, 'a null value stays null');
    const note = await attributesOf(stores.crm, subject.crm.noteId);
    assert.match(note.text as string, /^[A-Za-z0-9]{30}$/);
    const reply = await attributesOf(stores.crm, subject.crm.replyId);
    assert.notEqual(reply.text, note.text);
    assert.notEqual((await attributesOf(stores.crm, other.crm.userId)).name, user.name);
    assert.deepEqual(await idsByIdentity(stores.crm, subject.values[3] as string), []);
  });

  it('string_rewrite: every targeted value becomes the configured text', async () => {
    await definePolicy(service, 'rewrite_policy', [
      {
        name: 'Rewrite',
        key: 'rewrite_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'string_rewrite', configuration: { rewrite_value: 'REDACTED' } },
      },
    ]);
    const subject = await seedSubject(stores, 'rewritten');
    const summary = await erase('rewrite_policy', subject);
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.userId), {
      email: 'REDACTED',
      name: 'REDACTED',
      nickname: null,
      phone: 'REDACTED',
    });
    assert.deepEqual(await attributesOf(stores.crm, subject.crm.replyId), { text: 'REDACTED' });
    assert.deepEqual(await attributesOf(stores.shop, subject.shop.orderId), {
      address: 'REDACTED',
      total: 'REDACTED',
    });
    assert.deepEqual(
      summary.erasure.map((entry) => entry.attributes_masked),
      [5, 4],
    );
    assert.deepEqual(await idsByIdentity(stores.shop, subject.email), []);
  });

  it('forget: the matching entities and their descendants are erased as by /api/user/forget', async () => {
    await definePolicy(service, 'forget_policy', [
      {
        name: 'Forget',
        key: 'forget_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'forget' },
      },
    ]);
    await definePolicy(service, 'forget_notes_policy', [
      {
        name: 'Forget notes',
        key: 'forget_notes_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'forget' },
        targets: ['notes.*'],
      },
    ]);
    const subject = await seedSubject(stores, 'forgotten');
    const partly = await seedSubject(stores, 'partly');
    const bystander = await seedSubject(stores, 'bystander');
    await uploadFile(stores.crm, subject.crm.userId, 'avatar', 'face');
    const untouched = await snapshot(bystander);
    const id = requestId();

    const summary = await erase('forget_policy', subject, id);
    assert.deepEqual(
      summary.erasure.map((entry) => [
        entry.datastore,
        entry.entities_forgotten,
        entry.attributes_deleted,
        entry.files_deleted,
      ]),
      [
        ['crm', 3, 6, 1],
        ['shop', 2, 4, 0],
      ],
    );
    for (const [client, ids] of [
      [stores.crm, Object.values(subject.crm)],
      [stores.shop, Object.values(subject.shop)],
    ] as const) {
      for (const entityId of ids) assert.equal((await entity(client, entityId)).error?.code, 'not_found');
    }
    assert.deepEqual(await snapshot(bystander), untouched);
    const audit = await auditOf(service, id);
    assert.deepEqual(audit.items[0]?.entity_ids.sort(), Object.values(subject.crm).sort());
    assert.deepEqual(audit.items[1]?.entity_ids.sort(), Object.values(subject.shop).sort());

    await erase('forget_notes_policy', partly);
    assert.equal((await entity(stores.crm, partly.crm.userId)).error, null);
    assert.equal((await entity(stores.crm, partly.crm.noteId)).error?.code, 'not_found');
    assert.equal((await entity(stores.crm, partly.crm.replyId)).error?.code, 'not_found');
    assert.equal((await entity(stores.shop, partly.shop.orderId)).error, null);
  });

  it('runs access before erasure, and a rerun changes nothing, keeps the package and counts nothing twice', async () => {
    await definePolicy(service, 'access_and_hash', [
      {
        name: 'Hash all',
        key: 'hash_all',
        action_type: 'erasure',
        masking_strategy: { strategy: 'hash' },
      },
      { name: 'Collect all', key: 'collect_all', action_type: 'access' },
    ]);
    const subject = await seedSubject(stores, 'rerun');
    const id = requestId();
    const input = {
      privacyRequestId: id,
      policyKey: 'access_and_hash',
      identities: operatorMatches({ email: subject.email }),
    };

    const first = await runPolicyRules(service.services, input);
    assert.equal(first.access[0]?.reused, false);
    const accessPackage = JSON.stringify(await readAccessPackage(service.services, id));
    assert.ok(accessPackage.includes(subject.email), 'the package holds the values from before the erasure');
    const erased = await snapshot(subject);
    assert.match(erased.user.attributes[0]?.value as string, /^[0-9a-f]{64}$/);
    const auditAfterFirst = await auditOf(service, id);

    const second = await runPolicyRules(service.services, input);
    assert.equal(second.access[0]?.reused, true);
    assert.deepEqual(second.access[0]?.datastores, first.access[0]?.datastores);
    assert.deepEqual(
      second.erasure,
      first.erasure.map((entry) => ({ ...entry, already_applied: true })),
    );
    assert.deepEqual(await snapshot(subject), erased, 'no value hashed twice');
    assert.equal(JSON.stringify(await readAccessPackage(service.services, id)), accessPackage);
    assert.deepEqual((await auditOf(service, id)).items, auditAfterFirst.items, 'nothing recorded twice');

    const racing = await seedSubject(stores, 'racing');
    const raceInput = {
      ...input,
      privacyRequestId: requestId(),
      identities: operatorMatches({ email: racing.email }),
    };
    const [one, two] = await Promise.all([
      runPolicyRules(service.services, raceInput),
      runPolicyRules(service.services, raceInput),
    ]);
    const applied = [...(one?.erasure ?? []), ...(two?.erasure ?? [])].filter(
      (entry) => !entry.already_applied,
    );
    assert.equal(applied.length, 2, 'each datastore erased by exactly one of two concurrent runs');
    const hashedEmail = createHmac('sha256', service.services.keyring.key('masking-hash'))
      .update(racing.email)
      .digest('hex');
    assert.equal((await attributesOf(stores.crm, racing.crm.userId)).email, hashedEmail);
  });

  it('a failure in one datastore rolls back only that datastore; the rerun finishes the rest', async () => {
    await definePolicy(service, 'rewrite_everything', [
      {
        name: 'Rewrite',
        key: 'rewrite_everything_rule',
        action_type: 'erasure',
        masking_strategy: { strategy: 'string_rewrite', configuration: { rewrite_value: 'gone' } },
      },
    ]);
    const subject = await seedSubject(stores, 'interrupted');
    const id = requestId();
    const before = await snapshot(subject);
    // The store refuses the shop's audit entry, as a crash at that point would: the shop's transaction fails.
    await service.services.db.exec(`
      CREATE FUNCTION refuse_shop_erasure() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'simulated failure'; END; $$;
      CREATE TRIGGER refuse_shop_erasure BEFORE INSERT ON audit_log FOR EACH ROW
        WHEN (NEW.datastore = 'shop' AND NEW.action = 'privacy_request.erasure')
        EXECUTE FUNCTION refuse_shop_erasure();`);
    try {
      await assert.rejects(erase('rewrite_everything', subject, id), /simulated failure/);
    } finally {
      await service.services.db.exec(
        'DROP TRIGGER refuse_shop_erasure ON audit_log; DROP FUNCTION refuse_shop_erasure();',
      );
    }
    const halfway = await snapshot(subject);
    assert.equal(halfway.user.attributes[0]?.value, 'gone', 'the crm committed');
    assert.deepEqual(halfway.customer, before.customer, 'the shop rolled back whole');
    assert.deepEqual(halfway.order, before.order);

    const rerun = await erase('rewrite_everything', subject, id);
    assert.deepEqual(
      rerun.erasure.map((entry) => [entry.datastore, entry.already_applied, entry.attributes_masked]),
      [
        ['crm', true, 5],
        ['shop', false, 4],
      ],
    );
    assert.deepEqual(await attributesOf(stores.shop, subject.shop.orderId), {
      address: 'gone',
      total: 'gone',
    });
    assert.deepEqual(
      (await auditOf(service, id)).items.map((entry) => entry.datastore),
      ['crm', 'shop'],
    );
  });

  it('an access-only rerun rewrites the package from the data as it is', async () => {
    const subject = await seedSubject(stores, 'reread');
    const id = requestId();
    const input = {
      privacyRequestId: id,
      policyKey: 'default_access_policy',
      identities: operatorMatches({ email: subject.email }),
    };
    await runPolicyRules(service.services, input);
    await stores.crm.call('/api/attribute/update', {
      json: [{ id: subject.crm.userId, attributes: [{ name: 'name', value: 'Renamed Person' }] }],
    });
    const again = await runPolicyRules(service.services, input);
    assert.equal(again.access[0]?.reused, false);
    assert.ok(JSON.stringify(await readAccessPackage(service.services, id)).includes('Renamed Person'));
  });
});
