// Entity ids are scoped to their datastore (migration 009). A key of datastore A used to learn whether an
// id existed in datastore B: get-by-id said "not found" while create said "already exists". Now B's id is
// answered to A exactly as an id nobody holds, on every endpoint, and A may create an entity of that id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/** Every endpoint's call about entity `id`, as [path, request options]. */
function callsAbout(id: string): [string, { json?: unknown; body?: FormData }][] {
  const upload = new FormData();
  upload.append('attribute', JSON.stringify({ entityId: id, name: 'passport', value: 'p.txt' }));
  upload.append('file', new Blob(['bytes']), 'p.txt');
  return [
    ['/api/entity/get-by-id', { json: [id] }],
    [
      '/api/entity/create',
      { json: [{ name: 'orders', references: [{ parentId: id, parentName: 'users' }] }] },
    ],
    ['/api/attribute/update', { json: [{ id, attributes: [{ name: 'email', value: 'x@example.com' }] }] }],
    ['/api/attribute/delete', { json: [{ id, attributes: [{ name: 'email' }] }] }],
    ['/api/entity/delete', { json: [id] }],
    ['/api/user/delete', { json: { entityId: id, attributeNames: 'users.email' } }],
    ['/api/user/forget', { json: { entityId: id } }],
    ['/api/user/sar', { json: { entityId: id, email: 'dpo@example.com' } }],
    ['/api/file/download', { json: { entityId: id, attributeName: 'passport' } }],
    ['/api/file/upload', { body: upload }],
    // Last: it creates the entity in the caller's datastore (an id taken elsewhere is free here).
    ['/api/entity/create', { json: [{ id, name: 'users' }] }],
  ];
}

describe('entity ids scoped to their datastore', () => {
  let service: TestService;
  let storeA: ApiClient;
  let storeB: ApiClient;
  before(async () => {
    service = await startTestService();
    storeA = await apiClient(service, 'scope-a');
    storeB = await apiClient(service, 'scope-b');
  });
  after(() => service.stop());

  it("answers another datastore's id exactly as an unknown id, on every endpoint", async () => {
    const theirs = randomUUID();
    const created = await storeB.call('/api/entity/create', {
      json: [{ id: theirs, name: 'users', attributes: [{ name: 'email', value: 'b-only@example.com' }] }],
    });
    assert.equal(created.body[0].error, null, created.text);
    const beforeB = await rowCounts(service, 'scope-b');
    const nobodys = randomUUID();
    for (const [index, [path, options]] of callsAbout(theirs).entries()) {
      const [, unknownOptions] = callsAbout(nobodys)[index] as [string, typeof options];
      const forTheirs = await storeA.call(path, options);
      const forNobodys = await storeA.call(path, unknownOptions);
      const normalise = (text: string) =>
        text
          .replaceAll(theirs, '<id>')
          .replaceAll(nobodys, '<id>')
          .replace(/[0-9a-f-]{36}/g, '<new id>');
      assert.equal(forTheirs.status, forNobodys.status, path);
      assert.equal(normalise(forTheirs.text), normalise(forNobodys.text), path);
    }
    assert.deepEqual(await rowCounts(service, 'scope-b'), beforeB);
  });

  it('lets two datastores hold the same id, each seeing and erasing only its own', async () => {
    const shared = randomUUID();
    for (const [store, email] of [
      [storeB, 'b@example.com'],
      [storeA, 'a@example.com'],
    ] as const) {
      const answer = await store.call('/api/entity/create', {
        json: [
          { id: shared, name: 'users', attributes: [{ name: 'email', value: email }] },
          { name: 'orders', references: [{ parentId: shared, parentName: 'users' }] },
        ],
      });
      assert.equal(answer.status, 203);
      assert.deepEqual(
        answer.body.map((item: { error: unknown }) => item.error),
        [null, null],
        answer.text,
      );
    }
    const readA = await storeA.call('/api/entity/get-by-id', { json: [shared] });
    assert.deepEqual(readA.body[0].attributes, [{ name: 'email', value: 'a@example.com' }]);
    const sarB = await storeB.call('/api/user/sar', { json: { entityId: shared, email: 'dpo@example.com' } });
    assert.equal(sarB.body.entities.length, 2);
    assert.equal(sarB.body.entities[0].attributes[0].value, 'b@example.com');

    const upload = new FormData();
    upload.append('attribute', JSON.stringify({ entityId: shared, name: 'passport', value: 'a.txt' }));
    upload.append('file', new Blob(['A only']), 'a.txt');
    assert.equal((await storeA.call('/api/file/upload', { body: upload })).status, 200);
    const downloadB = await storeB.call('/api/file/download', {
      json: { entityId: shared, attributeName: 'passport' },
    });
    assert.equal(downloadB.status, 404);

    const beforeB = await rowCounts(service, 'scope-b');
    const forgotten = await storeA.call('/api/user/forget', { json: { entityId: shared } });
    assert.deepEqual(forgotten.body.erased, { entities: 2, attributes: 1, files: 1 });
    assert.deepEqual(await rowCounts(service, 'scope-b'), beforeB, "B's entity of the same id is untouched");
    const readB = await storeB.call('/api/entity/get-by-id', { json: [shared] });
    assert.deepEqual(readB.body[0].attributes, [{ name: 'email', value: 'b@example.com' }]);
  });
});
