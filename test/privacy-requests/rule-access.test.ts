// Access rules over real datastores: the package's contents and target filtering, descendants,
// case-insensitive and derived identities, sealed storage on disk, several storage destinations.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Value from 'typebox/value';
import {
  AccessPackageSchema,
  loadAccessPackage,
  readAccessPackage,
} from '../../src/privacy-requests/rules/access-package.ts';
import { runPolicyRules } from '../../src/privacy-requests/rules/runner.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  auditOf,
  definePolicy,
  openStores,
  packageFilesOnDisk,
  requestId,
  seedSubject,
  type Stores,
  type Subject,
  uploadFile,
  operatorMatches,
} from './rule-support.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- packages are inspected field by field
type AnyPackage = any;

const idsIn = (accessPackage: AnyPackage, datastore: string): string[] =>
  accessPackage.datastores
    .find((entry: { name: string }) => entry.name === datastore)
    .entities.map((found: { id: string }) => found.id);

const entityIn = (accessPackage: AnyPackage, datastore: string, id: string) =>
  accessPackage.datastores
    .find((entry: { name: string }) => entry.name === datastore)
    .entities.find((found: { id: string }) => found.id === id);

const assertNoValue = (text: string, subject: Subject, where: string) => {
  for (const value of subject.values) assert.ok(!text.includes(value), `${where} must not hold ${value}`);
};

describe('access rules', () => {
  let service: TestService;
  let stores: Stores;
  let subject: Subject;
  let bystander: Subject;
  before(async () => {
    service = await startTestService();
    stores = await openStores(service);
    subject = await seedSubject(stores, 'ada');
    bystander = await seedSubject(stores, 'grace');
    await uploadFile(stores.crm, subject.crm.userId, 'avatar', 'picture bytes of ada');
  });
  after(() => service.stop());

  it('collects the matching trees of every datastore, descendants included, emails in any case', async () => {
    const id = requestId();
    const summary = await runPolicyRules(service.services, {
      privacyRequestId: id,
      policyKey: 'default_access_policy',
      identities: operatorMatches({ email: subject.email.toUpperCase() }),
    });
    assert.deepEqual(summary.datastores, ['crm', 'shop']);
    assert.deepEqual(summary.erasure, []);
    assert.equal(summary.access.length, 1);
    const [stored] = summary.access;
    assert.equal(stored?.storage_destination_key, 'default_storage');
    assert.deepEqual(stored?.rule_keys, ['default_access_rule']);
    assert.equal(stored?.reused, false);
    assert.ok((stored?.bytes ?? 0) > 0);
    assert.deepEqual(stored?.datastores, [
      { datastore: 'crm', matched_entities: 3, entities: 3, attributes: 6, files: 1 },
      { datastore: 'shop', matched_entities: 2, entities: 2, attributes: 4, files: 0 },
    ]);

    const accessPackage = (await readAccessPackage(service.services, id)) as AnyPackage;
    assert.deepEqual([...Value.Errors(AccessPackageSchema, accessPackage)], [], 'the documented shape');
    assert.equal(accessPackage.privacy_request_id, id);
    assert.equal(accessPackage.policy_key, 'default_access_policy');
    assert.deepEqual(accessPackage.rules, [
      { key: 'default_access_rule', targets: ['*'], storage_destination_key: 'default_storage' },
    ]);
    assert.deepEqual(idsIn(accessPackage, 'crm'), [
      subject.crm.userId,
      subject.crm.noteId,
      subject.crm.replyId,
    ]);
    assert.deepEqual(idsIn(accessPackage, 'shop'), [subject.shop.customerId, subject.shop.orderId]);
    const user = entityIn(accessPackage, 'crm', subject.crm.userId);
    assert.equal(user.name, 'users');
    assert.deepEqual(user.attributes, [
      { name: 'email', value: subject.email },
      { name: 'name', value: subject.values[3] },
      { name: 'nickname', value: null },
      { name: 'phone', value: subject.phone },
    ]);
    assert.deepEqual(user.files, [
      {
        name: 'avatar',
        fileName: 'avatar.txt',
        contentType: 'text/plain',
        size: 'picture bytes of ada'.length,
      },
    ]);
    const reply = entityIn(accessPackage, 'crm', subject.crm.replyId);
    assert.deepEqual(reply.references, [{ parentId: subject.crm.noteId, parentName: 'notes' }]);
    assert.deepEqual(reply.attributes, [{ name: 'text', value: subject.values[5] }]);
    const order = entityIn(accessPackage, 'shop', subject.shop.orderId);
    assert.deepEqual(order.attributes, [
      { name: 'address', value: subject.values[6] },
      { name: 'total', value: '12.50' },
    ]);
    const packageText = JSON.stringify(accessPackage);
    for (const ids of [Object.values(bystander.crm), Object.values(bystander.shop)]) {
      for (const bystanderId of ids)
        assert.ok(!packageText.includes(bystanderId), 'a bystander is in the package');
    }

    assertNoValue(JSON.stringify(summary), subject, 'the summary');
    const files = await packageFilesOnDisk(service, id);
    assert.equal(files.length, 1, 'one package file, no staging leftovers');
    const envelope = JSON.parse(files[0] as string);
    assert.equal(envelope.format, 'lethe-sealed-access-package');
    assert.equal(envelope.privacy_request_id, id);
    assertNoValue(files[0] as string, subject, 'the package file');
    assert.ok(!(files[0] as string).includes('High Street'));

    const audit = await auditOf(service, id);
    assert.deepEqual(
      audit.items.map((entry) => [entry.action, entry.datastore]),
      [
        ['privacy-request.access', 'crm'],
        ['privacy-request.access', 'shop'],
      ],
    );
    assert.deepEqual(audit.items[0]?.entity_ids.sort(), Object.values(subject.crm).sort());
    assert.equal(audit.items[0]?.details.matched_entities, 3);
    assertNoValue(audit.text, subject, 'the audit log');
  });

  it('puts only the targeted tables and attributes into the package', async () => {
    await definePolicy(service, 'profile_access', [
      { name: 'Profile', key: 'profile', action_type: 'access', targets: ['users.email', 'orders.*'] },
    ]);
    const id = requestId();
    const summary = await runPolicyRules(service.services, {
      privacyRequestId: id,
      policyKey: 'profile_access',
      identities: operatorMatches({ email: subject.email }),
    });
    assert.deepEqual(summary.access[0]?.datastores, [
      { datastore: 'crm', matched_entities: 3, entities: 1, attributes: 1, files: 0 },
      { datastore: 'shop', matched_entities: 2, entities: 1, attributes: 2, files: 0 },
    ]);
    const accessPackage = (await readAccessPackage(service.services, id)) as AnyPackage;
    assert.deepEqual(idsIn(accessPackage, 'crm'), [subject.crm.userId]);
    assert.deepEqual(entityIn(accessPackage, 'crm', subject.crm.userId).attributes, [
      { name: 'email', value: subject.email },
    ]);
    assert.deepEqual(entityIn(accessPackage, 'crm', subject.crm.userId).files, []);
    assert.deepEqual(idsIn(accessPackage, 'shop'), [subject.shop.orderId]);
  });

  it('finds the subject through a derived identity (a phone number) alone', async () => {
    const id = requestId();
    const summary = await runPolicyRules(service.services, {
      privacyRequestId: id,
      policyKey: 'default_access_policy',
      identities: operatorMatches({ phone_number: subject.phone, email: '  ' }),
    });
    assert.deepEqual(
      summary.access[0]?.datastores.map((entry) => [entry.datastore, entry.matched_entities]),
      [
        ['crm', 3],
        ['shop', 0],
      ],
    );
    const accessPackage = (await readAccessPackage(service.services, id)) as AnyPackage;
    assert.deepEqual(idsIn(accessPackage, 'crm'), [
      subject.crm.userId,
      subject.crm.noteId,
      subject.crm.replyId,
    ]);
    assert.deepEqual(idsIn(accessPackage, 'shop'), []);
  });

  it('stores each destination its own rules’ selection and reads them back as one package', async () => {
    await service.services.db.query(
      `INSERT INTO storage_destinations (id, key, name, type, location)
       VALUES ('sto_archive', 'archive', 'Archive', 'local', 'archive-packages')`,
    );
    await definePolicy(service, 'split_access', [
      { name: 'Users', key: 'users_part', action_type: 'access', targets: ['users.*'] },
      {
        name: 'Customers',
        key: 'customers_part',
        action_type: 'access',
        targets: ['customers.email', 'users.phone'],
        storage_destination_key: 'archive',
      },
    ]);
    const id = requestId();
    const summary = await runPolicyRules(service.services, {
      privacyRequestId: id,
      policyKey: 'split_access',
      identities: operatorMatches({ email: subject.email }),
    });
    assert.deepEqual(
      // Rules created in one call may share a creation time; the order between destinations is not the point.
      summary.access.map((stored) => [stored.storage_destination_key, stored.rule_keys]).sort(),
      [
        ['archive', ['customers_part']],
        ['default_storage', ['users_part']],
      ],
    );
    const archived = await loadAccessPackage(
      service.config,
      service.services.keyring,
      'archive-packages',
      id,
    );
    assert.deepEqual(idsIn(archived?.accessPackage, 'crm'), [subject.crm.userId]);
    assert.deepEqual(entityIn(archived?.accessPackage, 'crm', subject.crm.userId).attributes, [
      { name: 'phone', value: subject.phone },
    ]);
    assert.deepEqual(idsIn(archived?.accessPackage, 'shop'), [subject.shop.customerId]);
    const archiveFile = await readFile(
      path.join(service.config.dataDir, 'archive-packages', `${id}.json`),
      'utf8',
    );
    assertNoValue(archiveFile, subject, 'the archive file');

    const merged = (await readAccessPackage(service.services, id)) as AnyPackage;
    assert.deepEqual([...Value.Errors(AccessPackageSchema, merged)], [], 'the documented shape');
    assert.deepEqual(
      merged.rules.map((rule: { key: string; storage_destination_key: string }) => [
        rule.key,
        rule.storage_destination_key,
      ]),
      [
        ['customers_part', 'archive'],
        ['users_part', 'default_storage'],
      ],
    );
    assert.deepEqual(
      entityIn(merged, 'crm', subject.crm.userId).attributes.map(
        (attribute: { name: string }) => attribute.name,
      ),
      ['email', 'name', 'nickname', 'phone'],
    );
    assert.deepEqual(entityIn(merged, 'crm', subject.crm.userId).files.length, 1);
    assert.deepEqual(entityIn(merged, 'shop', subject.shop.customerId).attributes, [
      { name: 'email', value: subject.email.toLowerCase() },
    ]);
  });

  it('refuses a package file copied from another request, or damaged, with a clear error', async () => {
    const original = requestId();
    const input = {
      policyKey: 'default_access_policy',
      identities: operatorMatches({ email: subject.email }),
    };
    await runPolicyRules(service.services, { ...input, privacyRequestId: original });
    const folder = path.join(service.config.dataDir, 'access-packages');
    const copied = requestId();
    await writeFile(
      path.join(folder, `${copied}.json`),
      await readFile(path.join(folder, `${original}.json`)),
    );
    await assert.rejects(readAccessPackage(service.services, copied), /cannot be opened/);
    const damaged = requestId();
    await writeFile(path.join(folder, `${damaged}.json`), '{"format": "something else"');
    await assert.rejects(readAccessPackage(service.services, damaged), /cannot be opened/);
    assert.notEqual(await readAccessPackage(service.services, original), null);
  });

  it('stores an empty package when nothing matches, and refuses bad input changing nothing', async () => {
    const id = requestId();
    const summary = await runPolicyRules(service.services, {
      privacyRequestId: id,
      policyKey: 'default_access_policy',
      identities: operatorMatches({ email: 'nobody@example.com' }),
    });
    assert.deepEqual(
      summary.access[0]?.datastores.map((entry) => entry.entities),
      [0, 0],
    );
    assert.deepEqual(
      ((await readAccessPackage(service.services, id)) as AnyPackage).datastores.map(
        (entry: { entities: unknown[] }) => entry.entities.length,
      ),
      [0, 0],
    );

    assert.equal(await readAccessPackage(service.services, requestId()), null);
    assert.equal(await readAccessPackage(service.services, '../../etc/passwd'), null);
    const traversal = '../outside';
    await assert.rejects(
      runPolicyRules(service.services, {
        privacyRequestId: traversal,
        policyKey: 'default_access_policy',
        identities: operatorMatches({ email: subject.email }),
      }),
      (error: Error & { code?: string }) =>
        error.code === 'unstorable_request_id' && /privacy request id/.test(error.message),
    );
    const unknownPolicy = requestId();
    await assert.rejects(
      runPolicyRules(service.services, {
        privacyRequestId: unknownPolicy,
        policyKey: 'no_such_policy',
        identities: operatorMatches({ email: subject.email }),
      }),
      (error: Error & { code?: string }) =>
        error.code === 'unknown_policy' && /no_such_policy/.test(error.message),
    );
    await assert.rejects(readFile(path.join(service.config.dataDir, 'outside.json')), { code: 'ENOENT' });
    assert.deepEqual(await packageFilesOnDisk(service, unknownPolicy), []);
    assert.deepEqual((await auditOf(service, unknownPolicy)).items, []);
    assert.deepEqual((await auditOf(service, traversal)).items, []);
  });
});
