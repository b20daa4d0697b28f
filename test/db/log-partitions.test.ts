// The time-partitioned logs on a real store: migration 012 carries existing audit and request-log rows
// into month partitions, partitions exist months ahead, the audit log still refuses UPDATE, DELETE and
// TRUNCATE (of a partition too), and retention (LETHE_AUDIT_RETENTION_DAYS) drops whole months older
// than the limit while 0 keeps everything.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { maintainLogPartitions } from '../../src/db/log-partitions.ts';
import { readMigrations } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/**
 * A fixed calendar: the upkeep is given this instant as its clock, so that what it keeps and drops does not
 * depend on the day the suite runs (the expectations below are written from the calendar, not computed).
 */
const CLOCK = new Date('2020-06-15T12:00:00Z');

async function partitionsOf(db: Database, table: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT child.relname AS name FROM pg_inherits JOIN pg_class child ON child.oid = inhrelid
      WHERE inhparent = $1::regclass ORDER BY 1`,
    [table],
  );
  return rows.map((row) => row.name);
}

describe('partitioned logs', () => {
  it('migration 012 keeps the rows written before it, in their month partitions', async () => {
    const database = await createTestDatabase({ migrated: false });
    const db = await openPostgres(database.url, { kind: 'postgres' });
    try {
      const migrations = await readMigrations();
      for (const migration of migrations.filter((candidate) => candidate.id < 12))
        await db.exec(migration.sql);
      await db.exec(`
        INSERT INTO audit_log (at, action, actor) VALUES
          (now() - interval '70 days', 'datastore.create', 'client:before'),
          (now(), 'maintenance.set', 'client:before');
        INSERT INTO policies (id, key, name) VALUES ('pol_before', 'before', 'Before');
        INSERT INTO privacy_requests (id, policy_id, status, identity_expires_at)
          VALUES ('pri_before', 'pol_before', 'pending', now() + interval '7 days');
        INSERT INTO privacy_request_log (privacy_request_id, at, kind, message)
          VALUES ('pri_before', now() - interval '40 days', 'note', 'written before the migration');`);
      await db.transaction(async (tx) => {
        for (const migration of migrations.filter((candidate) => candidate.id === 12))
          await tx.exec(migration.sql);
      });
      const audit = await db.query<{ action: string; part: string }>(
        'SELECT action, tableoid::regclass::text AS part FROM audit_log ORDER BY seq',
      );
      assert.deepEqual(
        audit.rows.map((row) => row.action),
        ['datastore.create', 'maintenance.set'],
      );
      assert.match(audit.rows[0]?.part ?? '', /^audit_log_\d{6}$/);
      assert.notEqual(audit.rows[0]?.part, audit.rows[1]?.part);
      const log = await db.query<{ message: string }>('SELECT message FROM privacy_request_log');
      assert.deepEqual(log.rows, [{ message: 'written before the migration' }]);
      await db.query("INSERT INTO audit_log (action, actor) VALUES ('after', 'client:after')");
      const { rows } = await db.query<{ seq: string }>('SELECT seq FROM audit_log ORDER BY seq');
      assert.deepEqual(
        rows.map((row) => Number(row.seq)),
        [1, 2, 3],
        'the sequence goes on',
      );
    } finally {
      await db.close();
      await database.drop();
    }
  });

  describe('on a running service', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService();
    });
    after(() => service.stop());

    it('keeps partitions three months ahead and the audit log append-only, partitions included', async () => {
      const { db } = service.services;
      await maintainLogPartitions(db, 0, CLOCK);
      for (const table of ['audit_log', 'privacy_request_log']) {
        const partitions = await partitionsOf(db, table);
        for (const month of ['202006', '202007', '202008', '202009'])
          assert.ok(partitions.includes(`${table}_${month}`), `${table}_${month}`);
      }
      // The service's own upkeep at start made the partition of today: a row written now finds its place.
      const { rows: probe } = await db.query<{ part: string }>(
        "INSERT INTO audit_log (action, actor) VALUES ('probe', 'client:probe') RETURNING tableoid::regclass::text AS part",
      );
      const current = probe[0]?.part ?? '';
      assert.match(current, /^audit_log_\d{6}$/);
      for (const statement of [
        "UPDATE audit_log SET action = 'changed'",
        'DELETE FROM audit_log',
        'TRUNCATE audit_log',
        `DELETE FROM ${current}`,
        `TRUNCATE ${current}`,
      ]) {
        await assert.rejects(db.query(statement), /audit_log is append-only/, statement);
      }
    });

    it('drops whole months past the retention, and nothing with retention 0', async () => {
      const { db } = service.services;
      await db.query("SELECT lethe_ensure_month_partitions('audit_log', '2020-01-01T00:00:00Z', 6)");
      await db.query(
        `INSERT INTO audit_log (at, action, actor) VALUES ('2020-01-16T08:00:00Z', 'old', 'client:old'),
           ('2020-03-20T08:00:00Z', 'recent', 'client:recent')`,
      );
      const before = await partitionsOf(db, 'audit_log');
      assert.deepEqual(await maintainLogPartitions(db, 0, CLOCK), []);
      assert.deepEqual(await partitionsOf(db, 'audit_log'), before);

      // 90 days before 2020-06-15T12:00Z is 2020-03-17T12:00Z: January and February ended before it, March
      // did not, so the March row stays although the cutoff falls inside its month.
      const dropped = await maintainLogPartitions(db, 90, CLOCK);
      assert.deepEqual(dropped, ['audit_log_202001', 'audit_log_202002']);
      const { rows } = await db.query<{ action: string }>(
        "SELECT action FROM audit_log WHERE actor IN ('client:old', 'client:recent')",
      );
      assert.deepEqual(rows, [{ action: 'recent' }]);
    });
  });
});
