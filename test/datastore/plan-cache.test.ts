import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../../src/db/database.ts';
import { loadEntities, loadEntitiesByIdentity } from '../../src/datastore/subject-store.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';

// A prepared statement is planned for its values (a custom plan) on its first five executions; then
// PostgreSQL keeps the generic plan only if its estimated cost is no higher than the custom plans'.
// A read whose generic plan looks costlier (the planner guesses 10 elements for an array parameter where
// the custom plan sees one) is planned again on every execution: get-by-id spent 0.25 ms of PostgreSQL
// CPU a call planning a statement that runs in 0.05 ms (bench/README.md, issue 29). The reads of one
// entity or one identity, the calls the API serves most, must settle on the generic plan.
describe('the reads of one entity or one identity run on a cached generic plan', () => {
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
  const cases: [string, (db: Queryable, round: number) => Promise<unknown[]>][] = [
    [
      'loadEntities of one id',
      (db, round) => loadEntities(db, keyring(), 'cached', [created[round] as string]),
    ],
    [
      'loadEntitiesByIdentity of one value',
      (db, round) => loadEntitiesByIdentity(db, keyring(), 'cached', [`cached${round}@example.com`]),
    ],
  ];

  for (const [name, read] of cases) {
    it(`${name} is planned at most five times in ${EXECUTIONS} executions on one connection`, async () => {
      await service.services.db.transaction(async (tx) => {
        await tx.exec('DEALLOCATE ALL');
        for (let round = 0; round < EXECUTIONS; round++) {
          const found = await read(tx, round);
          assert.equal(found.length, 1, 'each read finds its entity');
        }
        const { rows } = await tx.query<{ statement: string; generic_plans: string; custom_plans: string }>(
          `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements
            WHERE statement LIKE '%entity_attributes%'`,
        );
        assert.equal(rows.length, 1, 'the read is one prepared statement');
        const [plans] = rows;
        assert.ok(
          Number(plans?.custom_plans) <= 5,
          `planned ${plans?.custom_plans} times (generic plan used ${plans?.generic_plans} times)`,
        );
        assert.equal(Number(plans?.generic_plans) + Number(plans?.custom_plans), EXECUTIONS);
      });
    });
  }
});
