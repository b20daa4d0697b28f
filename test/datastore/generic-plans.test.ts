import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../src/db/database.ts';
import {
  entityTables,
  loadEntities,
  loadEntitiesByIdentity,
  loadSubtrees,
  matchIdentities,
  takenEntityIds,
} from '../../src/datastore/subject-store.ts';
import {
  deleteAttributes,
  deleteEntities,
  deleteFileAttributes,
  setAttributeValues,
} from '../../src/datastore/subject-writes.ts';
import { matchIdentitiesByKind, matchedSubtrees } from '../../src/datastore/identity-match.ts';
import { DEFAULT_IDENTITY_ATTRIBUTES } from '../../src/datastore/identity-attributes.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { parameterLiterals, recordingStatements } from '../helpers/statements.ts';
import { apiClient } from '../helpers/area-b.ts';

// Every statement runs as a named prepared statement, and a connection keeps its generic plan. Made while
// the statistics still describe a small datastore (a datastore that just grew, before autovacuum's next
// ANALYZE), that plan used to read every entity or attribute of the datastore and filter them: the cost
// of reading or erasing one subject grew with the datastore. Each statement below is run as such a plan
// (plan_cache_mode = force_generic_plan, right after 2,000 entities were created) and may examine only
// the rows of the entities it names.
describe('Area B statements by id or identity: one index probe per value in every plan', () => {
  let service: TestService;
  const created: string[] = [];
  before(async () => {
    service = await startTestService();
    const api = await apiClient(service, 'plans');
    for (let batch = 0; batch < 20; batch++) {
      const answer = await api.call('/api/entity/create', {
        json: Array.from({ length: 100 }, (_, index) => ({
          name: 'users',
          attributes: [{ name: 'email', value: `plan${batch * 100 + index}@example.com` }],
        })),
      });
      created.push(...answer.body.map((item: { id: string }) => item.id));
    }
  });
  after(() => service.stop());

  const keyring = () => service.services.keyring;
  const wanted = () => [created[7] as string, created[321] as string];
  // The API's reads record themselves in the read's statement (auditedRead).
  const readEntry = { action: 'entity.get-by-id', datastore: 'plans', actor: 'api-key:plans' };
  const byKind = () => [
    { kind: 'email', value: 'plan7@example.com' },
    { kind: 'email', value: 'PLAN321@example.com' },
  ];

  const cases: [string, (db: Queryable) => Promise<unknown>][] = [
    ['loadEntities', (db) => loadEntities(db, keyring(), 'plans', wanted())],
    ['loadEntities of one id', (db) => loadEntities(db, keyring(), 'plans', [created[7] as string])],
    ['loadEntities audited', (db) => loadEntities(db, keyring(), 'plans', wanted(), readEntry)],
    [
      'loadEntities of one id, audited',
      (db) => loadEntities(db, keyring(), 'plans', [created[7] as string], readEntry),
    ],
    [
      'loadEntitiesByIdentity',
      (db) => loadEntitiesByIdentity(db, keyring(), 'plans', ['plan7@example.com', 'PLAN321@example.com']),
    ],
    [
      'loadEntitiesByIdentity audited',
      (db) =>
        loadEntitiesByIdentity(
          db,
          keyring(),
          'plans',
          ['plan7@example.com', 'PLAN321@example.com'],
          readEntry,
        ),
    ],
    [
      'matchIdentities',
      (db) => matchIdentities(db, keyring(), 'plans', ['plan7@example.com', 'plan321@example.com']),
    ],
    [
      'matchIdentitiesByKind (the default attributes)',
      (db) => matchIdentitiesByKind(db, keyring(), 'plans', byKind(), [...DEFAULT_IDENTITY_ATTRIBUTES]),
    ],
    [
      'matchIdentitiesByKind (declared attributes of one table)',
      (db) =>
        matchIdentitiesByKind(db, keyring(), 'plans', byKind(), [
          { kind: 'email', table: 'users', attribute: 'email' },
          { kind: 'email', table: 'users', attribute: 'notes' },
          { kind: 'phone_number', table: '', attribute: 'phone' },
        ]),
    ],
    ['matchedSubtrees', (db) => matchedSubtrees(db, { keyring: keyring() }, 'plans', byKind())],
    ['loadSubtrees', (db) => loadSubtrees(db, keyring(), 'plans', wanted())],
    ['loadSubtrees of one root', (db) => loadSubtrees(db, keyring(), 'plans', [created[7] as string])],
    ['entityTables', (db) => entityTables(db, 'plans', wanted())],
    ['takenEntityIds', (db) => takenEntityIds(db, 'plans', wanted())],
    [
      'setAttributeValues',
      (db) =>
        setAttributeValues(
          db,
          keyring(),
          'plans',
          wanted().map((entityId) => ({ entityId, name: 'email', value: 'changed@example.com' })),
        ),
    ],
    [
      'setAttributeValues of one entity',
      (db) =>
        setAttributeValues(db, keyring(), 'plans', [
          { entityId: created[7] as string, name: 'email', value: 'changed@example.com' },
        ]),
    ],
    [
      'deleteAttributes (the documents)',
      (db) =>
        deleteAttributes(
          db,
          'plans',
          wanted().map((entityId) => ({ entityId, name: 'email' })),
        ),
    ],
    [
      'deleteFileAttributes (the documents)',
      (db) =>
        deleteFileAttributes(
          db,
          'plans',
          wanted().map((entityId) => ({ entityId, name: 'scan' })),
        ),
    ],
    ['deleteEntities (their children first)', (db) => deleteEntities(db, 'plans', wanted())],
  ];

  for (const [name, run] of cases) {
    it(`${name} examines only the rows of the entities it names`, async () => {
      const examined = await rolledBack(async (tx) => {
        await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan');
        const { queryable, statements } = recordingStatements(tx);
        await run(queryable);
        assert.ok(statements.length > 0);
        const scans: string[] = [];
        for (const { sql, params } of statements) {
          await tx.exec(`PREPARE statement_under_test AS ${sql}`);
          const { rows } = await tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE statement_under_test(${parameterLiterals(sql, params).join(', ')})`,
          );
          await tx.exec('DEALLOCATE statement_under_test');
          for (const node of planNodes(rows[0]?.['QUERY PLAN'][0]?.Plan as PlanNode)) {
            const target = node['Relation Name'] ?? node['Index Name'] ?? '';
            if (!/^entit(ies|y_attributes)(_|$)/.test(target)) continue;
            const rowsExamined = (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0);
            scans.push(`${node['Node Type']} on ${target}: ${rowsExamined}`);
            assert.ok(
              rowsExamined <= wanted().length,
              `${node['Node Type']} on ${target} examined ${rowsExamined} rows per loop in\n${sql}`,
            );
          }
        }
        return scans;
      });
      assert.ok(examined.length > 0, 'the statements read entities or attributes');
    });
  }

  // Migration 029: an entity is one row holding its document, so the API's reads touch nothing else.
  const readShapes: [string, (db: Queryable) => Promise<unknown>, string[]][] = [
    [
      'get-by-id reads one row of entities by its primary key, and records its audit entry',
      (db) => loadEntities(db, keyring(), 'plans', [created[7] as string], readEntry),
      ['audit_log', 'entities', 'entities_pkey'],
    ],
    [
      'get-by-identity probes the blind index, then reads one row of entities by its primary key',
      (db) => loadEntitiesByIdentity(db, keyring(), 'plans', ['PLAN7@example.com'], readEntry),
      ['audit_log', 'entities', 'entities_pkey', 'entity_attributes', 'entity_attributes_blind_index_idx'],
    ],
  ];
  for (const [name, run, touched] of readShapes) {
    it(name, async () => {
      const found = await rolledBack(async (tx) => {
        await tx.exec('SET LOCAL plan_cache_mode = force_generic_plan');
        const { queryable, statements } = recordingStatements(tx);
        await run(queryable);
        assert.equal(statements.length, 1, 'one statement');
        const [{ sql, params }] = statements as [{ sql: string; params: readonly unknown[] }];
        await tx.exec(`PREPARE read_under_test AS ${sql}`);
        const { rows } = await tx.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE read_under_test(${parameterLiterals(sql, params).join(', ')})`,
        );
        await tx.exec('DEALLOCATE read_under_test');
        const nodes = planNodes(rows[0]?.['QUERY PLAN'][0]?.Plan as PlanNode);
        for (const node of nodes.filter((node) => node['Relation Name'] === 'entities')) {
          assert.equal(node['Node Type'], 'Index Scan', 'entities is read by its primary key');
          assert.equal(node['Actual Rows'], 1, 'one row');
        }
        return nodes.flatMap((node) => [node['Relation Name'], node['Index Name']]);
      });
      const names = new Set(
        found.filter((name) => name !== undefined).map((name) => name.replace(/_\d+$/, '')),
      );
      assert.deepEqual([...names].sort(), touched);
    });
  }

  /** Runs `work` in a transaction that is rolled back: EXPLAIN ANALYZE of a write writes. */
  async function rolledBack<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    let result: T | undefined;
    const rollback = new Error('rolled back');
    await service.services.db
      .transaction(async (tx) => {
        result = await work(tx);
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
    return result as T;
  }
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
