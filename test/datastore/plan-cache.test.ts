import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../src/db/database.ts';
import { matchedSubtrees } from '../../src/datastore/identity-match.ts';
import { loadEntities, loadEntitiesByIdentity, subtreeOf } from '../../src/datastore/subject-store.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';

// A prepared statement is planned for its values (a custom plan) on its first five executions; then
// PostgreSQL keeps the generic plan only if its estimated cost is no higher than the custom plans'.
// A read whose generic plan looks costlier (the planner guesses 10 elements for an array parameter where
// the custom plan sees one) is planned again on every execution: get-by-id spent 0.25 ms of PostgreSQL
// CPU a call planning a statement that runs in 0.05 ms (bench/README.md, issue 29). The reads of one
// entity, one identity or one subject's tree (the API's reads, a privacy request's rule run) must settle on
// the generic plan, each of their statements.
async function preparedPlans(db: Queryable): Promise<Map<string, { generic: number; custom: number }>> {
  const { rows } = await db.query<{ statement: string; generic_plans: string; custom_plans: string }>(
    'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements',
  );
  return new Map(
    rows.map((row) => [
      row.statement,
      { generic: Number(row.generic_plans), custom: Number(row.custom_plans) },
    ]),
  );
}

describe('the reads of one entity, identity or subtree run on cached generic plans', () => {
  let service: TestService;
  const created: string[] = [];
  const EXECUTIONS = 12;
  before(async () => {
    service = await startTestService();
    const api = await apiClient(service, 'cached');
    const answer = await api.call('/api/entity/create', {
      json: Array.from({ length: 50 }, (_, index) => ({
        name: 'users',
        attributes: [
          { name: 'email', value: `cached${index}@example.com` },
          { name: 'first_name', value: `First${index}` },
        ],
      })),
    });
    created.push(...answer.body.map((item: { id: string }) => item.id));
  });
  after(() => service.stop());

  const keyring = () => service.services.keyring;
  const readEntry = { action: 'entity.get-by-id', datastore: 'cached', actor: 'api-key:cached' };
  const cases: [string, (db: Queryable, round: number) => Promise<unknown[]>][] = [
    [
      'loadEntities of one id',
      (db, round) => loadEntities(db, keyring(), 'cached', [created[round] as string]),
    ],
    [
      'loadEntities of one id, audited (get-by-id)',
      (db, round) => loadEntities(db, keyring(), 'cached', [created[round] as string], readEntry),
    ],
    [
      'loadEntitiesByIdentity of one value',
      (db, round) => loadEntitiesByIdentity(db, keyring(), 'cached', [`cached${round}@example.com`]),
    ],
    [
      'loadEntitiesByIdentity of one value, audited (get-by-identity)',
      (db, round) =>
        loadEntitiesByIdentity(db, keyring(), 'cached', [`cached${round}@example.com`], readEntry),
    ],
    ['subtreeOf one root', (db, round) => subtreeOf(db, 'cached', [created[round] as string])],
    [
      'matchedSubtrees of one identity',
      (db, round) =>
        matchedSubtrees(db, { keyring: keyring() }, 'cached', [
          { kind: 'email', value: `cached${round}@example.com` },
        ]),
    ],
  ];

  for (const [name, read] of cases) {
    it(`${name} is planned at most five times in ${EXECUTIONS} executions on one connection`, async () => {
      await service.services.db.transaction(async (tx) => {
        // The connection may have run these statements before: count this test's plans as differences.
        const before = await preparedPlans(tx);
        for (let round = 0; round < EXECUTIONS; round++) {
          const found = await read(tx, round);
          assert.equal(found.length, 1, 'each read finds its entity');
        }
        const after = await preparedPlans(tx);
        let statements = 0;
        for (const [statement, plans] of after) {
          const earlier = before.get(statement) ?? { generic: 0, custom: 0 };
          const custom = plans.custom - earlier.custom;
          const generic = plans.generic - earlier.generic;
          if (custom + generic === 0 || statement.includes('pg_prepared_statements')) continue;
          statements += 1;
          assert.ok(
            custom <= 5,
            `planned ${custom} times (generic plan used ${generic} times):\n${statement}`,
          );
          assert.equal(custom + generic, EXECUTIONS);
        }
        assert.ok(statements > 0, 'the reads ran as prepared statements');
      });
    });
  }
});
