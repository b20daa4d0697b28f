// Regression for the subtree query: entities that each reference 50 earlier ones used to be expanded once
// per (entity, depth), so the query's work grew with the square of the subtree (0.9 s at 400 entities,
// 4 s at 800; counted here as the rows its plan produces, which a loaded machine does not change). Duplicates are now removed on the entity and each parent's children are found
// through the index: doubling the subtree about doubles the work. A subtree past MAX_SUBTREE_ENTITIES is
// refused with 400 before anything is read or erased, and so is an identity lookup (the other fan-out of
// a subject-rights call) past MAX_IDENTITY_MATCHES.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  MAX_IDENTITY_MATCHES,
  MAX_SUBTREE_ENTITIES,
  matchIdentities,
  subtreeOf,
} from '../../src/datastore/subject-store.ts';
import type { Queryable } from '../../src/db/database.ts';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const REFERENCES_EACH = 50;

/** A chain of `size` entities where each references the (up to) 50 before it; answers the root's id. */
async function denseSubtree(api: ApiClient, size: number): Promise<string> {
  const ids = Array.from({ length: size }, () => randomUUID());
  const items = ids.map((id, index) => ({
    id,
    name: 'nodes',
    references: ids
      .slice(Math.max(0, index - REFERENCES_EACH), index)
      .map((parentId) => ({ parentId, parentName: 'nodes' })),
    attributes: [{ name: 'label', value: `node ${index}` }],
  }));
  for (let start = 0; start < items.length; start += 100) {
    const created = await api.call('/api/entity/create', { json: items.slice(start, start + 100) });
    assert.equal(created.status, 203, created.text.slice(0, 300));
  }
  return ids[0] as string;
}

interface PlanNode {
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** The rows every node of a plan produced over all its loops: the query's work, whatever the machine's load. */
function rowsProduced(node: PlanNode): number {
  const own = node['Actual Rows'] * node['Actual Loops'];
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsProduced(child), 0);
}

/**
 * The work of the subtree query over one root, counted by PostgreSQL: the statement subtreeOf sends is
 * captured on its way to the database, then run again under EXPLAIN ANALYZE.
 */
async function subtreeWork(service: TestService, root: { id: string; size: number }): Promise<number> {
  const db = service.services.db;
  const sent: { sql: string; params: readonly unknown[] }[] = [];
  const recording: Queryable = {
    query: (sql, params = []) => {
      sent.push({ sql, params });
      return db.query(sql, params);
    },
    exec: (sql) => db.exec(sql),
  };
  const tree = await subtreeOf(recording, 'graph', [root.id]);
  assert.equal(tree.length, root.size);
  assert.equal(sent.length, 1, 'the subtree is one statement');
  const [{ sql, params }] = sent as [{ sql: string; params: readonly unknown[] }];
  const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`,
    params,
  );
  return rowsProduced((rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan);
}

describe('subtree size', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'graph');
  });
  after(() => service.stop());

  it('subtree work grows linearly with a densely referenced subtree, and SAR answers all of it', async () => {
    const small = await denseSubtree(api, 400);
    const large = await denseSubtree(api, 800);
    const smallWork = await subtreeWork(service, { id: small, size: 400 });
    const largeWork = await subtreeWork(service, { id: large, size: 800 });
    // Linear is about 2; the quadratic query produced rows for every (entity, depth).
    assert.ok(largeWork / smallWork < 3, `rows produced at 400 entities: ${smallWork}, at 800: ${largeWork}`);

    const sar = await api.call('/api/user/sar', { json: { entityId: large, email: 'dpo@example.com' } });
    assert.equal(sar.status, 200, sar.text.slice(0, 300));
    assert.equal(sar.body.entities.length, 800);
  });

  it(`refuses a subtree of more than ${MAX_SUBTREE_ENTITIES} entities with 400, erasing nothing`, async () => {
    const rootId = randomUUID();
    const shared = [{ name: 'tag', value: 'shared' }];
    const children = Array.from({ length: MAX_SUBTREE_ENTITIES }, () => ({
      name: 'children',
      references: [{ parentId: rootId, parentName: 'roots' }],
      attributes: shared,
    }));
    const root = await api.call('/api/entity/create', {
      json: [{ id: rootId, name: 'roots', attributes: shared }],
    });
    assert.equal(root.status, 203, root.text);
    for (let start = 0; start < children.length; start += 1000) {
      const created = await api.call('/api/entity/create', { json: children.slice(start, start + 1000) });
      assert.equal(created.status, 203);
    }
    const before = await rowCounts(service, 'graph');
    const message = new RegExp(`more than ${MAX_SUBTREE_ENTITIES}`);
    for (const [path, json] of [
      ['/api/user/sar', { entityId: rootId, email: 'dpo@example.com' }],
      ['/api/user/forget', { entityId: rootId }],
      ['/api/user/delete', { entityId: rootId, attributeNames: 'children.label' }],
    ] as const) {
      const answer = await api.call(path, { json });
      assert.equal(answer.status, 400, `${path}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, message);
    }
    assert.deepEqual(await rowCounts(service, 'graph'), before);
  });

  it(`refuses an identity lookup matching more than ${MAX_IDENTITY_MATCHES} entities with 400`, async () => {
    const lookup = await api.call('/api/entity/get-by-identity', { json: ['shared', 'nobody'] });
    assert.equal(lookup.status, 400, lookup.text.slice(0, 200));
    assert.match(lookup.text, new RegExp(`more than ${MAX_IDENTITY_MATCHES} entities`));
    // The read records itself in its own statement (auditedRead), but not a lookup refused for its size:
    // nothing of it was answered.
    const entries = async (answer: { headers: Headers }) => {
      const { rows } = await service.services.db.query<{ count: number }>(
        'SELECT count(*)::int AS count FROM audit_log WHERE request_id = $1',
        [answer.headers.get('x-request-id')],
      );
      return rows[0]?.count;
    };
    assert.equal(await entries(lookup), 0);
    await assert.rejects(
      matchIdentities(service.services.db, service.services.keyring, 'graph', ['shared']),
      new RegExp(`more than ${MAX_IDENTITY_MATCHES} entities`),
    );
    const few = await api.call('/api/entity/get-by-identity', { json: ['node 3', 'nobody'] });
    assert.equal(few.status, 200, few.text.slice(0, 200));
    assert.deepEqual(
      few.body.map((item: { entities: unknown[] }) => item.entities.length),
      [2, 0],
    );
    assert.equal(await entries(few), 1);
  });
});
