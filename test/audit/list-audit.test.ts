// listAudit's statements must let PostgreSQL read each filter through its index even on a generic plan:
// pg prepares every statement by its text on each pooled connection, and after five executions
// PostgreSQL may plan it once for any parameters. A statement covering every filter
// (`$1::text IS NULL OR datastore = $1`) then reads the whole log for any filter; with 10 million rows in
// place, seconds per console page (bench/audit-log.ts). The plans are checked here, not the time; and
// the total is counted as a bigint.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { type AuditFilter, listAudit, recordAudit } from '../../src/audit/audit-log.ts';
import type { Database } from '../../src/db/database.ts';
import { maintainLogPartitions } from '../../src/db/log-partitions.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { recordingStatements, type Statement, sqlLiteral } from '../helpers/statements.ts';

describe('listAudit at scale: statements that stay fast and a total that does not overflow', () => {
  let database: TestDatabase;
  let db: Database;
  /** One session whose planner may use only bitmap scans or a (penalised) sequential scan. */
  let planner: pg.Client;
  before(async () => {
    database = await createTestDatabase();
    db = await openPostgres(database.url, { kind: 'postgres' });
    planner = new pg.Client({ connectionString: database.url });
    await planner.connect();
    await planner.query(`SET plan_cache_mode = force_generic_plan;
                         SET enable_seqscan = off;
                         SET enable_indexscan = off;
                         SET enable_indexonlyscan = off`);
    await maintainLogPartitions(db, 0);
    await recordAudit(db, {
      action: 'entity.get-by-id',
      datastore: 'shop',
      entityId: 'subject-1',
      actor: 'api-key:key_1',
    });
  });
  after(async () => {
    await planner.end();
    await db.close();
    await database.drop();
  });

  /** The statements listAudit sends for `filter`, as it sends them. */
  async function statementsOf(filter: Omit<AuditFilter, 'page' | 'size'>): Promise<Statement[]> {
    const { queryable, statements } = recordingStatements(db);
    const { rows } = await listAudit(queryable, { ...filter, page: 1, size: 50 });
    assert.equal(rows.length, 1, 'the filter matches the entry recorded');
    return statements;
  }

  /** The generic plan of `statement` in the planner's session, with `settings` for this plan alone. */
  async function genericPlan(statement: Statement, settings = ''): Promise<string> {
    await planner.query('BEGIN');
    await planner.query(`PREPARE audit_listing AS ${statement.sql}`);
    try {
      if (settings) await planner.query(settings);
      const args = statement.params.length > 0 ? `(${statement.params.map(sqlLiteral).join(', ')})` : '';
      const { rows } = await planner.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE audit_listing${args}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await planner.query('ROLLBACK');
      await planner.query('DEALLOCATE audit_listing');
    }
  }

  const indexed: { filter: Omit<AuditFilter, 'page' | 'size'>; index: RegExp }[] = [
    { filter: { datastore: 'shop' }, index: /Bitmap Index Scan on audit_log_\d{6}_datastore_seq_idx/ },
    { filter: { entityId: 'SUBJECT-1' }, index: /Bitmap Index Scan on audit_log_\d{6}_entity_ids_idx/ },
    {
      filter: { actor: 'api-key:key_1' },
      index: /Bitmap Index Scan on audit_log_\d{6}_actor_action_seq_idx/,
    },
    {
      // Any period around the entry recorded: a generic plan is the same for every value.
      filter: { from: new Date('2000-01-01T00:00:00Z'), to: new Date('2100-01-01T00:00:00Z') },
      index: /Bitmap Index Scan on audit_log_\d{6}_at_idx/,
    },
  ];
  for (const { filter, index } of indexed) {
    it(`by ${Object.keys(filter).join(' and ')}: the count and the page use the index on a generic plan`, async () => {
      const statements = await statementsOf(filter);
      assert.equal(statements.length, 2);
      for (const statement of statements) assert.match(await genericPlan(statement), index, statement.sql);
    });
  }

  it('counts the total as a bigint, which holds more than 2^31 entries', async () => {
    const [count] = await statementsOf({ actor: 'api-key:key_1' });
    assert.ok(count);
    const { rows } = await db.query<{ type: string }>(
      `SELECT pg_typeof(total)::text AS type FROM (${count.sql}) AS listing`,
      count.params,
    );
    assert.deepEqual(rows, [{ type: 'bigint' }]);
  });

  it("by entity id, the page is the subject's entries sorted, never a walk of the whole log by seq", async () => {
    const [, page] = await statementsOf({ entityId: 'subject-1' });
    assert.ok(page);
    // As when the planner guesses the subject common: sorting looks dearer than walking the primary key.
    const plan = await genericPlan(page, 'SET LOCAL enable_sort = off; SET LOCAL enable_indexscan = on');
    assert.match(plan, /Bitmap Index Scan on audit_log_\d{6}_entity_ids_idx/);
    assert.doesNotMatch(plan, /Index Scan Backward using audit_log_\d{6}_pkey/);
  });
});
