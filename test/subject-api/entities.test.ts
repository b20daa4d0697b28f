import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';

describe('Area B entities and attributes', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'shop');
  });
  after(() => service.stop());

  const createUser = async (email: string, extra: { name: string; value: string | null }[] = []) => {
    const answer = await api.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: email }, ...extra] }],
    });
    assert.equal(answer.status, 203, answer.text);
    return answer.body[0].id as string;
  };

  it('creates entities with references to earlier ones, answering 203 in request order', async () => {
    const userId = randomUUID();
    const answer = await api.call('/api/entity/create', {
      json: [
        {
          id: userId,
          name: 'users',
          attributes: [
            { name: 'email', value: 'ada@example.com' },
            { name: 'born', value: '1815-12-10T00:00:00.000Z' },
            { name: 'nickname', value: null },
          ],
        },
        {
          name: 'orders',
          references: [{ parentId: userId, parentName: 'users' }],
          attributes: [{ name: 'address', value: '12 St James Square' }],
        },
      ],
    });
    assert.equal(answer.status, 203);
    assert.equal(answer.body.length, 2);
    assert.equal(answer.body[0].id, userId);
    assert.equal(answer.body[0].error, null);
    assert.equal(answer.body[1].error, null);
    assert.deepEqual(answer.body[1].references, [{ parentId: userId, parentName: 'users', error: null }]);

    const read = await api.call('/api/entity/get-by-id', { json: [answer.body[1].id, userId] });
    assert.equal(read.status, 200);
    assert.equal(read.body[0].name, 'orders');
    assert.deepEqual(read.body[0].references, [{ parentId: userId, parentName: 'users' }]);
    assert.deepEqual(read.body[1].attributes, [
      { name: 'born', value: '1815-12-10T00:00:00.000Z' },
      { name: 'email', value: 'ada@example.com' },
      { name: 'nickname', value: null },
    ]);
    assert.ok(!Number.isNaN(Date.parse(read.body[1].createdAt)));
  });

  it('answers per-item errors for unknown parents, mismatched parent names and taken ids', async () => {
    const userId = await createUser('parent@example.com');
    const before = await rowCounts(service, 'shop');
    const answer = await api.call('/api/entity/create', {
      json: [
        { name: 'orders', references: [{ parentId: randomUUID(), parentName: 'users' }] },
        { name: 'orders', references: [{ parentId: userId, parentName: 'accounts' }] },
        { id: userId, name: 'users' },
        { name: 'orders', references: [{ parentId: 'not-a-uuid', parentName: 'users' }] },
        { name: 'orders', references: [{ parentId: userId, parentName: 'users' }] },
      ],
    });
    assert.equal(answer.status, 203);
    assert.deepEqual(
      answer.body.map((item: { error: { code: string } | null }) => item.error?.code ?? null),
      ['unknown_parent', 'parent_name_mismatch', 'conflict', 'unknown_parent', null],
    );
    assert.equal(answer.body[0].id, null);
    assert.match(answer.body[1].references[0].error.message, /is a users, not a "accounts"/);
    assert.match(answer.body[3].error.message, /not-a-uuid/);
    const after = await rowCounts(service, 'shop');
    assert.equal(after.entities, before.entities + 1, 'only the valid item was created');
  });

  it('refuses a malformed request as a whole with a 400 sentence and creates nothing', async () => {
    const before = await rowCounts(service, 'shop');
    const cases: { body?: string; json?: unknown; headers?: Record<string, string>; expect: RegExp }[] = [
      { body: '[{"name": "users",', headers: { 'content-type': 'application/json' }, expect: /JSON/ },
      {
        body: '<users/>',
        headers: { 'content-type': 'application/xml' },
        expect: /content type "application\/xml"/,
      },
      { body: 'users', headers: { 'content-type': 'text/plain' }, expect: /content type "text\/plain"/ },
      { json: [], expect: /body must not be empty/ },
      { json: {}, expect: /body\.entities is required/ },
      { json: [{ attributes: [] }], expect: /body\.0\.name is required/ },
      { json: [{ name: 'users', colour: 'red' }], expect: /body\.0\.colour is not an accepted field/ },
      {
        json: [{ name: 'users', attributes: [{ name: 'email' }] }],
        expect: /body\.0\.attributes\.0\.value is required/,
      },
      { json: [{ name: 'users', attributes: [{ name: 'email', value: 5 }] }], expect: /value/ },
      {
        json: [{ name: 'users', attributes: [{ name: "email'; DROP TABLE entities; --", value: 'x' }] }],
        expect: /"email'; DROP TABLE entities; --"/,
      },
      {
        json: [{ name: 'users', attributes: [{ name: 'a"b', value: 'x' }] }],
        expect: /"a\\"b" is not a valid name|a\\"b/,
      },
      { json: [{ name: 'users.email' }], expect: /"users\.email"/ },
      { json: [{ name: 'users', id: 'not-a-uuid' }], expect: /uuid/ },
      {
        json: [
          {
            name: 'users',
            attributes: [
              { name: 'email', value: 'a' },
              { name: 'email', value: 'b' },
            ],
          },
        ],
        expect: /"email" appears twice/,
      },
    ];
    const oversized = JSON.stringify([
      { name: 'users', attributes: [{ name: 'blob', value: 'x'.repeat(60000) }] },
    ]);
    const tooLarge = await api.call('/api/entity/create', {
      body: `[${Array(20).fill(oversized.slice(1, -1)).join(',')}]`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(tooLarge.status, 413);
    assert.match(tooLarge.headers.get('content-type') ?? '', /^text\/plain/);
    const malformedGet = await api.call('/api/entity/get-by-id', {
      method: 'GET',
      body: '["a",',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformedGet.status, 400);
    for (const { expect, ...request } of cases) {
      const answer = await api.call('/api/entity/create', request);
      assert.equal(answer.status, 400, `${JSON.stringify(request)} -> ${answer.text}`);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(answer.text, expect);
    }
    assert.deepEqual(await rowCounts(service, 'shop'), before);
    const tables = await service.services.db.query("SELECT 1 FROM pg_tables WHERE tablename = 'entities'");
    assert.equal(tables.rows.length, 1);
  });

  it('reads input from JSON, urlencoded forms, multipart forms and query strings, for POST and GET', async () => {
    const id = await createUser('forms@example.com');
    const expectFound = (
      answer: { status: number; body: { id: string; error: unknown }[] },
      label: string,
    ) => {
      assert.equal(answer.status, 200, label);
      assert.equal(answer.body[0]?.id, id, label);
      assert.equal(answer.body[0]?.error, null, label);
    };
    const multipart = () => {
      const form = new FormData();
      form.append('ids', id);
      return form;
    };
    for (const method of ['POST', 'GET']) {
      expectFound(await api.call('/api/entity/get-by-id', { method, json: [id] }), `${method} json array`);
      expectFound(
        await api.call('/api/entity/get-by-id', { method, json: { ids: [id] } }),
        `${method} json object`,
      );
      expectFound(
        await api.call('/api/entity/get-by-id', { method, body: new URLSearchParams({ ids: id }) }),
        `${method} urlencoded`,
      );
      expectFound(
        await api.call('/api/entity/get-by-id', {
          method,
          body: new URLSearchParams({ ids: JSON.stringify([id]) }),
        }),
        `${method} urlencoded JSON text`,
      );
      expectFound(
        await api.call('/api/entity/get-by-id', { method, body: multipart() }),
        `${method} multipart`,
      );
      expectFound(await api.call(`/api/entity/get-by-id?ids=${id}`, { method }), `${method} query`);
    }
    const repeated = await api.call(`/api/entity/get-by-id?ids=${id}&ids=${randomUUID()}`, { method: 'GET' });
    assert.equal(repeated.body.length, 2);
    assert.equal(repeated.body[1].error.code, 'not_found');
    const created = await api.call(
      `/api/entity/create?entities=${encodeURIComponent(JSON.stringify([{ name: 'users' }]))}`,
      { method: 'GET' },
    );
    assert.equal(created.status, 203);
    const notJson = await api.call('/api/entity/create', {
      body: new URLSearchParams({ entities: 'users' }),
    });
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /body\.entities must be a JSON array/);
    const stray = await api.call('/api/entity/get-by-id', {
      body: new URLSearchParams({ ids: id, extra: '1' }),
    });
    assert.equal(stray.status, 400);
    assert.match(stray.text, /body\.extra is not an accepted field/);
    const fileInForm = new FormData();
    fileInForm.append('ids', id);
    fileInForm.append('upload', new Blob(['x']), 'x.txt');
    const withFile = await api.call('/api/entity/get-by-id', { body: fileInForm });
    assert.equal(withFile.status, 400);
    assert.match(withFile.text, /takes no file/);
    const missing = await api.call('/api/entity/get-by-id', { method: 'GET' });
    assert.equal(missing.status, 400);
    assert.match(missing.text, /querystring\.ids is required/);
  });

  it('takes every batch endpoint by GET query string and by multipart form', async () => {
    const id = await createUser('batch-forms@example.com');
    const items = JSON.stringify([{ id, attributes: [{ name: 'city', value: 'Paris' }] }]);
    const update = new FormData();
    update.append('items', items);
    const updated = await api.call('/api/attribute/update', { body: update });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body[0].error, null);
    const updatedByQuery = await api.call(
      `/api/attribute/update?items=${encodeURIComponent(items.replace('Paris', 'Lyon'))}`,
      { method: 'GET' },
    );
    assert.equal(updatedByQuery.body[0].error, null);
    const read = await api.call(`/api/entity/get-by-id?ids=${id}`, { method: 'GET' });
    assert.deepEqual(read.body[0].attributes[0], { name: 'city', value: 'Lyon' });
    const deletedAttribute = await api.call(
      `/api/attribute/delete?items=${encodeURIComponent(JSON.stringify([{ id, attributes: [{ name: 'city' }] }]))}`,
      { method: 'GET' },
    );
    assert.equal(deletedAttribute.body[0].error, null);
    const identities = new FormData();
    identities.append('identities', 'batch-forms@example.com');
    const found = await api.call('/api/entity/get-by-identity', { body: identities });
    assert.equal(found.body[0].entities[0].id, id);
    const created = new FormData();
    created.append('entities', JSON.stringify([{ name: 'users' }]));
    const createdByForm = await api.call('/api/entity/create', { body: created });
    assert.equal(createdByForm.status, 203);
    const deleted = await api.call(`/api/entity/delete?ids=${id}&ids=${createdByForm.body[0].id}`, {
      method: 'GET',
    });
    assert.equal(deleted.status, 200);
    assert.deepEqual(
      deleted.body.map((item: { error: unknown }) => item.error),
      [null, null],
    );
  });

  it('answers every entity sharing an identity, oldest first, and an entity matched twice under each identity', async () => {
    const older = await createUser('twin-one@example.com', [{ name: 'household', value: 'twin-house' }]);
    const newer = await createUser('twin-two@example.com', [{ name: 'household', value: 'twin-house' }]);
    const answer = await api.call('/api/entity/get-by-identity', {
      json: ['twin-house', 'TWIN-ONE@example.com', 'twin-house'],
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.map((item: { entities: { id: string }[] }) => item.entities.map((entity) => entity.id)),
      [[older, newer], [older], [older, newer]],
    );
    assert.deepEqual(
      answer.body[1].entities[0].attributes.map((attribute: { name: string }) => attribute.name),
      ['email', 'household'],
    );
  });

  it('finds entities by identity through the blind index: emails case-insensitively, others exactly', async () => {
    const first = await createUser('Grace.Hopper@Example.COM', [{ name: 'username', value: 'GHopper' }]);
    const second = await createUser('someone@example.com', [{ name: 'username', value: 'ghopper' }]);
    const answer = await api.call('/api/entity/get-by-identity', {
      json: ['  grace.hopper@example.com ', 'GHopper', 'ghopper', 'GHOPPER', 'nobody@example.com'],
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.map((item: { entities: { id: string }[] }) => item.entities.map((entity) => entity.id)),
      [[first], [first], [second], [], []],
    );
    assert.equal(answer.body[0].identity, '  grace.hopper@example.com ');
    assert.equal(answer.body[3].error.code, 'not_found');
    assert.equal(answer.body[0].entities[0].attributes[0].value, 'Grace.Hopper@Example.COM');
    const viaQuery = await api.call(
      `/api/entity/get-by-identity?identities=${encodeURIComponent('GRACE.HOPPER@example.com')}`,
      {
        method: 'GET',
      },
    );
    assert.deepEqual(
      viaQuery.body[0].entities.map((entity: { id: string }) => entity.id),
      [first],
    );
    const plan = await service.services.db.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT entity_id FROM entity_attributes WHERE datastore = 'shop' AND blind_index = ANY(ARRAY['\\x00'::bytea])`,
    );
    const text = plan.rows.map((row) => Object.values(row).join(' ')).join('\n');
    await service.services.db.exec('SET enable_seqscan = off');
    const forced = await service.services.db.query(
      `EXPLAIN SELECT entity_id FROM entity_attributes WHERE datastore = 'shop' AND blind_index = ANY(ARRAY['\\x00'::bytea])`,
    );
    await service.services.db.exec('SET enable_seqscan = on');
    assert.match(
      forced.rows.map((row) => Object.values(row).join(' ')).join('\n'),
      /entity_attributes_blind_index_idx/,
      text,
    );
  });

  it('updates and deletes attributes per item; unknown ids answer an item error', async () => {
    const id = await createUser('attrs@example.com', [{ name: 'phone', value: '+4420' }]);
    const unknown = randomUUID();
    const updated = await api.call('/api/attribute/update', {
      json: [
        {
          id,
          attributes: [
            { name: 'phone', value: '+4421' },
            { name: 'city', value: 'London' },
            { name: 'email', value: null },
          ],
        },
        { id: unknown, attributes: [{ name: 'phone', value: '1' }] },
      ],
    });
    assert.equal(updated.status, 200);
    assert.equal(updated.body[0].error, null);
    assert.equal(updated.body[1].error.code, 'not_found');
    assert.match(updated.body[1].error.message, new RegExp(unknown));
    let read = await api.call('/api/entity/get-by-id', { json: [id] });
    assert.deepEqual(read.body[0].attributes, [
      { name: 'city', value: 'London' },
      { name: 'email', value: null },
      { name: 'phone', value: '+4421' },
    ]);
    const byOldEmail = await api.call('/api/entity/get-by-identity', { json: ['attrs@example.com'] });
    assert.deepEqual(byOldEmail.body[0].entities, [], 'a nullified value leaves the index');

    const deleted = await api.call('/api/attribute/delete', {
      method: 'GET',
      body: new URLSearchParams({
        items: JSON.stringify([
          { id, attributes: [{ name: 'city' }, { name: 'absent' }] },
          { id: 'nope', attributes: [{ name: 'x' }] },
        ]),
      }),
    });
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body[0].error, null);
    assert.equal(deleted.body[1].error.code, 'not_found');
    read = await api.call('/api/entity/get-by-id', { json: [id] });
    assert.deepEqual(
      read.body[0].attributes.map((attribute: { name: string }) => attribute.name),
      ['email', 'phone'],
    );

    const before = await rowCounts(service, 'shop');
    for (const [path, json] of [
      ['/api/attribute/update', [{ id, attributes: [{ name: "x' OR '1'='1", value: 'v' }] }]],
      ['/api/attribute/update', [{ id, attributes: [] }]],
      ['/api/attribute/update', [{ id }]],
      [
        '/api/attribute/update',
        [
          {
            id,
            attributes: [
              { name: 'a', value: '1' },
              { name: 'a', value: '2' },
            ],
          },
        ],
      ],
      ['/api/attribute/delete', [{ id, attributes: [{ name: 'phone', value: 'x' }] }]],
      ['/api/attribute/delete', { items: 'phone' }],
      ['/api/attribute/delete', [{ id, attributes: [{ name: 'ph"one' }] }]],
    ] as const) {
      const answer = await api.call(path, { json });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(json)} -> ${answer.text}`);
    }
    assert.deepEqual(await rowCounts(service, 'shop'), before);
    read = await api.call('/api/entity/get-by-id', { json: [id] });
    assert.deepEqual(
      read.body[0].attributes.map((attribute: { name: string }) => attribute.name),
      ['email', 'phone'],
    );
  });

  it('deletes entities with their attributes; children stay and lose the reference', async () => {
    const parent = await createUser('delete-me@example.com');
    const child = await api.call('/api/entity/create', {
      json: [{ name: 'orders', references: [{ parentId: parent, parentName: 'users' }] }],
    });
    const childId = child.body[0].id;
    const answer = await api.call('/api/entity/delete', { json: [parent, parent.toUpperCase(), 'garbage'] });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      answer.body.map((item: { error: { code: string } | null }) => item.error?.code ?? null),
      [null, null, 'not_found'],
    );
    const read = await api.call('/api/entity/get-by-id', { json: [parent, childId] });
    assert.equal(read.body[0].error.code, 'not_found');
    assert.deepEqual(read.body[1].references, []);
    const attributes = await service.services.db.query(
      'SELECT 1 FROM entity_attributes WHERE entity_id = $1',
      [parent],
    );
    assert.equal(attributes.rows.length, 0);
    const bad = await api.call('/api/entity/delete', { json: [42] });
    assert.equal(bad.status, 400);
    assert.match(bad.text, /body\.0 must be string/);
  });

  it('keeps no personal value in clear in the store', async () => {
    const marker = `Zebulon.Marker-${randomUUID()}@Example.org`;
    const id = await createUser(marker, [{ name: 'street', value: 'Marker Lane 42' }]);
    const form = new FormData();
    form.append('attribute', JSON.stringify({ entityId: id, name: 'scan', value: 'Marker-passport.txt' }));
    form.append('file', new Blob(['plain text contents of Marker Lane 42']), 'scan.txt');
    assert.equal((await api.call('/api/file/upload', { body: form })).status, 200);
    await api.call('/api/user/sar', { json: { entityId: id, email: marker } });
    for (const table of [
      'entities',
      'entity_attributes',
      'entity_files',
      'entity_file_chunks',
      'audit_log',
      'entity_references',
    ]) {
      const { rows } = await service.services.db.query<{ dump: string }>(
        `SELECT coalesce(string_agg(t::text, ' '), '') AS dump FROM ${table} t`,
      );
      const dump = rows[0]?.dump ?? '';
      for (const needle of ['Zebulon', 'zebulon', 'Marker', 'marker', '4d61726b6572' /* "Marker" in hex */]) {
        assert.ok(!dump.includes(needle), `${table} holds ${needle}`);
      }
    }
  });
});
