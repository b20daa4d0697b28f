import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { layoutState, runLayoutMigration } from '../../src/datastore/entity-layout.ts';
import { apiClient, type ApiClient } from '../helpers/area-b.ts';
import { toEarlierLayout } from '../helpers/earlier-layout.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// Migration 029 moves every entity into one document per row while the service answers
// (src/datastore/entity-layout.ts, docs/area-b.md). A store upgraded from an earlier release holds its
// entities in the earlier layout: they must read and write as before, move across a kill -9 of the mover,
// and be verified one by one afterwards.
describe('the online move of entities into one document each', () => {
  let service: TestService;
  let api: ApiClient;
  const users: string[] = [];
  const orders: string[] = [];
  const USERS = 400;
  const ORDERS = 100;

  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'moving');
    for (let start = 0; start < USERS; start += 100) {
      const created = await api.call('/api/entity/create', {
        json: Array.from({ length: 100 }, (_, offset) => ({
          name: 'users',
          attributes: [
            { name: 'email', value: `user${start + offset}@example.com` },
            { name: 'first_name', value: `First${start + offset}` },
            { name: 'nickname', value: (start + offset) % 3 === 0 ? null : `nick${start + offset}` },
          ],
        })),
      });
      users.push(...created.body.map((item: { id: string }) => item.id));
    }
    const created = await api.call('/api/entity/create', {
      json: users.slice(0, ORDERS).map((parentId, index) => ({
        name: 'orders',
        references: [{ parentId, parentName: 'users' }],
        attributes: [{ name: 'address', value: `${index} Main Street` }],
      })),
    });
    orders.push(...created.body.map((item: { id: string }) => item.id));
    const form = new FormData();
    form.append('attribute', JSON.stringify({ entityId: users[0], name: 'passport', value: 'scan.txt' }));
    form.append('file', new Blob(['scan of a passport'], { type: 'text/plain' }), 'scan.txt');
    assert.equal((await api.call('/api/file/upload', { body: form })).status, 200);
  });
  after(() => service.stop());

  const db = () => service.services.db;
  type Answer = { id: string; attributes: { name: string; value: string | null }[] } & Record<
    string,
    unknown
  >;

  async function read(ids: readonly string[]): Promise<Answer[]> {
    const answer = await api.call('/api/entity/get-by-id', { json: ids });
    assert.equal(answer.status, 200, answer.text);
    return answer.body;
  }

  const setAttribute = (entity: Answer, name: string, value: string) => ({
    ...entity,
    attributes: entity.attributes.map((attribute) => (attribute.name === name ? { name, value } : attribute)),
  });

  async function earlierRows(): Promise<number> {
    const { rows } = await db().query<{ count: number }>(
      'SELECT count(*)::int AS count FROM entities WHERE attributes IS NULL',
    );
    return rows[0]?.count ?? -1;
  }

  it('reads and writes the earlier layout, moves across a kill -9 while serving, and verifies each entity', async () => {
    const all = [...users, ...orders];
    const expected = new Map((await read(all)).map((entity) => [entity.id, entity]));
    assert.equal(expected.size, USERS + ORDERS);
    assert.equal(
      (expected.get(users[0] as string)?.files as unknown[]).length,
      1,
      'the file is part of the answer',
    );
    const identity = async () =>
      (await api.call('/api/entity/get-by-identity', { json: ['USER7@example.com', 'user8@example.com'] }))
        .body;
    const identityBefore = await identity();

    assert.equal(await toEarlierLayout(db(), 'moving'), USERS + ORDERS);
    assert.equal(await earlierRows(), USERS + ORDERS);
    assert.deepEqual(await read(all), [...expected.values()], 'the earlier layout reads as before');
    assert.deepEqual(await identity(), identityBefore);

    // A write to an entity of the earlier layout moves it and keeps what it did not change.
    const renamed = users[1] as string;
    const update = await api.call('/api/attribute/update', {
      json: [{ id: renamed, attributes: [{ name: 'first_name', value: 'Renamed' }] }],
    });
    assert.equal(update.body[0].error, null);
    expected.set(renamed, setAttribute(expected.get(renamed) as Answer, 'first_name', 'Renamed'));
    // A parent deleted: its child (earlier layout, moved later) loses the reference.
    const deleted = users[2] as string;
    assert.equal((await api.call('/api/entity/delete', { json: [deleted] })).body[0].error, null);
    expected.delete(deleted);
    const orphan = orders[2] as string;
    expected.set(orphan, { ...(expected.get(orphan) as Answer), references: [] });
    assert.deepEqual(await read([renamed, orphan]), [expected.get(renamed), expected.get(orphan)]);

    const child = spawn(
      process.execPath,
      [path.join(import.meta.dirname, '../helpers/layout-move-child.ts'), '20', '30'],
      {
        env: {
          ...process.env,
          LETHE_TEST_LAYOUT_DATABASE_URL: service.config.databaseUrl,
          LETHE_TEST_LAYOUT_KEY: (service.config.encryptionKey as Buffer).toString('hex'),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = once(child, 'exit');
    // The service answers reads and writes while the mover runs: reads of entities nobody writes must
    // answer what they held, and writes to the others must all land.
    const stable = [...users.slice(0, 10), ...orders].filter((id) => expected.has(id));
    let served = 0;
    let written = 0;
    const traffic = (async () => {
      for (let round = 0; ; round++) {
        const state = await layoutState(db());
        if (state.moved >= 100) break;
        const id = stable[round % stable.length] as string;
        assert.deepEqual(await read([id]), [expected.get(id)]);
        served += 1;
        const target = users[20 + (round % 300)] as string;
        const value = `during-${round}`;
        await api.call('/api/attribute/update', {
          json: [{ id: target, attributes: [{ name: 'first_name', value }] }],
        });
        expected.set(target, setAttribute(expected.get(target) as Answer, 'first_name', value));
        written += 1;
      }
    })();
    await traffic;
    child.kill('SIGKILL');
    const [, signal] = await exited;
    assert.equal(signal, 'SIGKILL');
    assert.ok(served > 0 && written > 0, 'reads and writes were served while the mover ran');

    const left = await earlierRows();
    const stopped = await layoutState(db());
    assert.equal(stopped.phase, 'move', 'killed before every entity moved');
    assert.ok(left > 0 && left < USERS + ORDERS - 1, `${left} entities left in the earlier layout`);
    assert.deepEqual(await read(all.filter((id) => expected.has(id))), [...expected.values()]);

    const finished = await runLayoutMigration(db(), service.services.keyring, { batchSize: 50 }).finished;
    assert.equal(finished?.phase, 'done');
    assert.equal(finished?.verified, USERS + ORDERS - 1, 'every entity verified');
    assert.equal(finished?.mismatched, 0, `mismatched: ${finished?.mismatchedIds.join(', ')}`);
    assert.equal(await earlierRows(), 0);
    const { rows: copies } = await db().query<{ count: number }>(
      'SELECT count(*)::int AS count FROM entity_attributes WHERE value_sealed IS NOT NULL',
    );
    assert.equal(copies[0]?.count, 0, 'no value is kept twice once verified');
    assert.deepEqual(await read(all.filter((id) => expected.has(id))), [...expected.values()]);
    assert.deepEqual(await identity(), identityBefore);
    const download = await api.call(`/api/file/download?entityId=${users[0]}&attributeName=passport`, {
      method: 'GET',
    });
    assert.equal(download.text, 'scan of a passport');
  });

  it('counts and names an entity whose moved document does not hold what its rows said', async () => {
    const other = await apiClient(service, 'corrupt');
    const created = await other.call('/api/entity/create', {
      json: Array.from({ length: 30 }, (_, index) => ({
        name: 'users',
        attributes: [
          { name: 'email', value: `c${index}@example.com` },
          { name: 'first_name', value: `C${index}` },
        ],
      })),
    });
    const ids: string[] = created.body.map((item: { id: string }) => item.id);
    await toEarlierLayout(db(), 'corrupt');
    // Two sealed values swapped between attributes: each box is bound to its own name, so neither opens.
    await db().query(
      `UPDATE entity_attributes a SET value_sealed = b.value_sealed
         FROM entity_attributes b
        WHERE a.datastore = 'corrupt' AND b.datastore = 'corrupt' AND a.entity_id = $1 AND b.entity_id = $1
          AND a.name <> b.name`,
      [ids[5]],
    );
    const { rows } = await db().query<{ count: number }>('SELECT count(*)::int AS count FROM entities');
    const finished = await runLayoutMigration(db(), service.services.keyring, { batchSize: 7 }).finished;
    assert.equal(finished?.phase, 'done');
    assert.equal(finished?.verified, rows[0]?.count);
    assert.equal(finished?.mismatched, 1);
    assert.deepEqual(finished?.mismatchedIds, [`corrupt/${ids[5]}`]);
  });
});
