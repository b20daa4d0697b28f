import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  findEntityIdsByIdentity,
  listDatastoreNames,
  loadSubtrees,
} from '../../src/datastore/subject-store.ts';
import { deleteAttributes, forgetEntities, setAttributeValues } from '../../src/datastore/subject-writes.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type ApiClient, apiClient, createDatastore, rowCounts } from '../helpers/area-b.ts';

// The functions the privacy-request engine calls, run directly against the store (inside a transaction,
// as the engine does), over data created through the HTTP API.
describe('Area B subject store: the engine contract', () => {
  let service: TestService;
  let api: ApiClient;
  const ids = { user: randomUUID(), orderA: randomUUID(), orderB: randomUUID(), shipment: randomUUID() };
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'engine');
    await createDatastore(service, 'empty');
    // A diamond: the shipment belongs to both orders of the user.
    const created = await api.call('/api/entity/create', {
      json: [
        {
          id: ids.user,
          name: 'users',
          attributes: [
            { name: 'email', value: 'Engine@Example.com' },
            { name: 'phone', value: '+15550100' },
          ],
        },
        {
          id: ids.orderA,
          name: 'orders',
          references: [{ parentId: ids.user, parentName: 'users' }],
          attributes: [{ name: 'address', value: 'A street' }],
        },
        {
          id: ids.orderB,
          name: 'orders',
          references: [{ parentId: ids.user, parentName: 'users' }],
          attributes: [{ name: 'address', value: 'B street' }],
        },
        {
          id: ids.shipment,
          name: 'shipments',
          references: [
            { parentId: ids.orderA, parentName: 'orders' },
            { parentId: ids.orderB, parentName: 'orders' },
          ],
          attributes: [{ name: 'tracking', value: 'TRK-1' }],
        },
      ],
    });
    assert.ok(
      created.body.every((item: { error: unknown }) => item.error === null),
      created.text,
    );
  });
  after(() => service.stop());

  const db = () => service.services.db;
  const keyring = () => service.services.keyring;

  it('lists datastores and finds entities by identity (emails case-insensitively)', async () => {
    const names = await listDatastoreNames(db());
    assert.ok(names.includes('engine') && names.includes('empty'));
    assert.deepEqual(
      await findEntityIdsByIdentity(db(), keyring(), 'engine', ['engine@EXAMPLE.com', '+15550100']),
      [ids.user],
    );
    assert.deepEqual(await findEntityIdsByIdentity(db(), keyring(), 'empty', ['engine@example.com']), []);
    assert.deepEqual(await findEntityIdsByIdentity(db(), keyring(), 'engine', []), []);
  });

  it('loads a subtree with every descendant once, decrypted, roots first', async () => {
    const tree = await db().transaction((tx) =>
      loadSubtrees(tx, keyring(), 'engine', [ids.user, 'not-a-uuid']),
    );
    assert.equal(tree.length, 4);
    assert.equal(tree[0]?.id, ids.user);
    assert.equal(tree.at(-1)?.id, ids.shipment);
    assert.deepEqual(
      tree.find((entity) => entity.id === ids.shipment)?.parents.map((parent) => parent.parentName),
      ['orders', 'orders'],
    );
    assert.deepEqual(tree[0]?.attributes, [
      { name: 'email', value: 'Engine@Example.com' },
      { name: 'phone', value: '+15550100' },
    ]);
    assert.equal(tree[0]?.datastore, 'engine');
    assert.deepEqual(
      await loadSubtrees(db(), keyring(), 'empty', [ids.user]),
      [],
      'other datastores see nothing',
    );
  });

  it('sets values (null keeps the attribute) and deletes attributes, counting rows', async () => {
    const changed = await db().transaction((tx) =>
      setAttributeValues(tx, keyring(), 'engine', [
        { entityId: ids.orderA, name: 'address', value: null },
        { entityId: ids.orderB, name: 'address', value: 'C street' },
        { entityId: ids.orderB, name: 'note', value: 'new' },
        { entityId: randomUUID(), name: 'address', value: 'x' },
        { entityId: ids.user, name: 'email', value: null },
      ]),
    );
    assert.equal(changed, 4);
    assert.equal(
      await setAttributeValues(db(), keyring(), 'empty', [{ entityId: ids.user, name: 'x', value: 'y' }]),
      0,
    );
    const [, orderA, orderB] = await loadSubtrees(db(), keyring(), 'engine', [ids.user]).then((tree) => [
      tree[0],
      tree.find((entity) => entity.id === ids.orderA),
      tree.find((entity) => entity.id === ids.orderB),
    ]);
    assert.deepEqual(orderA?.attributes, [{ name: 'address', value: null }]);
    assert.deepEqual(orderB?.attributes, [
      { name: 'address', value: 'C street' },
      { name: 'note', value: 'new' },
    ]);
    assert.deepEqual(await findEntityIdsByIdentity(db(), keyring(), 'engine', ['engine@example.com']), []);

    const removed = await deleteAttributes(db(), 'engine', [
      { entityId: ids.orderB, name: 'note' },
      { entityId: ids.orderB, name: 'absent' },
      { entityId: 'garbage', name: 'note' },
    ]);
    assert.equal(removed, 1);
    assert.equal(await deleteAttributes(db(), 'empty', [{ entityId: ids.orderA, name: 'address' }]), 0);
  });

  it('forgets a whole subtree inside the caller transaction, and rolls back with it', async () => {
    const before = await rowCounts(service, 'engine');
    await assert.rejects(
      db().transaction(async (tx) => {
        await forgetEntities(tx, 'engine', [ids.user]);
        throw new Error('the engine failed later in the datastore');
      }),
      /failed later/,
    );
    assert.deepEqual(await rowCounts(service, 'engine'), before, 'rolled back');
    const erased = await db().transaction((tx) => forgetEntities(tx, 'engine', [ids.user]));
    assert.deepEqual(erased, { entities: 4, attributes: before.attributes, files: 0 });
    assert.deepEqual(await rowCounts(service, 'engine'), {
      entities: 0,
      attributes: 0,
      index_entries: 0,
      references: 0,
      files: 0,
      chunks: 0,
    });
    assert.deepEqual(await forgetEntities(db(), 'engine', [ids.user]), {
      entities: 0,
      attributes: 0,
      files: 0,
    });
  });
});
