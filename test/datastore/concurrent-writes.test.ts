import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient, type ApiClient } from '../helpers/area-b.ts';
import { toEarlierLayout } from '../helpers/earlier-layout.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// An entity's attributes are one document in its row (migration 029): a write that read the document,
// changed it and wrote it back would lose what a concurrent write did in between. Each write computes the
// new document from the current one under the row's lock (src/datastore/subject-writes.ts), so concurrent
// writes to one entity all land, whichever layout the entity was in.
describe('concurrent writes to one entity', () => {
  let service: TestService;
  let api: ApiClient;
  const WRITERS = 24;

  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'busy');
  });
  after(() => service.stop());

  async function createUser(): Promise<string> {
    const created = await api.call('/api/entity/create', {
      json: [
        {
          name: 'users',
          attributes: Array.from({ length: WRITERS }, (_, index) => ({ name: `kept${index}`, value: 'old' })),
        },
      ],
    });
    return created.body[0].id;
  }

  async function attributesOf(id: string): Promise<Record<string, string | null>> {
    const answer = await api.call('/api/entity/get-by-id', { json: [id] });
    return Object.fromEntries(
      answer.body[0].attributes.map((attribute: { name: string; value: string | null }) => [
        attribute.name,
        attribute.value,
      ]),
    );
  }

  /**
   * WRITERS updates and WRITERS deletes of distinct attributes of `id`, IN_FLIGHT at a time: fewer than the
   * service's pool of 10 connections, so that every call is in a transaction at once with the others (they
   * queue on the entity's row lock, not for a connection, whatever the machine's load).
   */
  async function writeAtOnce(id: string) {
    const calls = [
      ...Array.from(
        { length: WRITERS },
        (_, index) => () =>
          api.call('/api/attribute/update', {
            json: [{ id, attributes: [{ name: `added${index}`, value: `value${index}` }] }],
          }),
      ),
      ...Array.from(
        { length: WRITERS },
        (_, index) => () =>
          api.call('/api/attribute/delete', { json: [{ id, attributes: [{ name: `kept${index}` }] }] }),
      ),
    ];
    const IN_FLIGHT = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < calls.length) {
          const answer = await (calls[next++] as () => ReturnType<ApiClient['call']>)();
          assert.equal(answer.status, 200, answer.text);
          assert.equal(answer.body[0].error, null, answer.text);
        }
      }),
    );
  }

  const expected = Object.fromEntries(
    Array.from({ length: WRITERS }, (_, index) => [`added${index}`, `value${index}`]),
  );

  it('keeps every one of many concurrent updates and deletes', async () => {
    const id = await createUser();
    await writeAtOnce(id);
    assert.deepEqual(await attributesOf(id), expected);
    const { rows } = await service.services.db.query<{ name: string }>(
      'SELECT name FROM entity_attributes WHERE datastore = $1 AND entity_id = $2 ORDER BY name',
      ['busy', id],
    );
    assert.deepEqual(
      rows.map((row) => row.name),
      Object.keys(expected).sort(),
      'the blind-index rows follow the document',
    );
    const found = await api.call('/api/entity/get-by-identity', { json: ['value7'] });
    assert.deepEqual(
      found.body[0].entities.map((entity: { id: string }) => entity.id),
      [id],
    );
  });

  it('keeps them all for an entity still in the earlier layout (the first writer moves it)', async () => {
    const id = await createUser();
    await toEarlierLayout(service.services.db, 'busy');
    await writeAtOnce(id);
    assert.deepEqual(await attributesOf(id), expected);
  });

  it('keeps a file bound while attributes change around it', async () => {
    const id = await createUser();
    const upload = () => {
      const form = new FormData();
      form.append('attribute', JSON.stringify({ entityId: id, name: 'scan', value: 'scan.txt' }));
      form.append('file', new Blob(['the scan'], { type: 'text/plain' }), 'scan.txt');
      return api.call('/api/file/upload', { body: form });
    };
    const [uploaded] = await Promise.all([upload(), writeAtOnce(id)]);
    assert.equal(uploaded.status, 200, uploaded.text);
    assert.deepEqual(await attributesOf(id), expected);
    const answer = await api.call('/api/entity/get-by-id', { json: [id] });
    assert.deepEqual(answer.body[0].files, [
      { name: 'scan', fileName: 'scan.txt', contentType: 'text/plain', size: 8 },
    ]);
  });
});
