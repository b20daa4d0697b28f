// node bench/audit-log.ts [--rows 10000000] [--store postgres|embedded] [--seconds 10] [--runs 20]
// The audit log's cost with millions of rows in place (issue 18): on a fresh database migrated by Lethe's
// migrations, the group-commit append path and the console's listAudit queries are measured on the
// (nearly) empty log, then `--rows` rows are loaded into several month partitions straight in SQL, and
// the same measurements are repeated, with their ratios to the empty case. Last, retention drops the
// oldest month through the product's upkeep. The database (or the embedded data dir) is removed after.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type AuditEntry, type AuditFilter, appendAudit, listAudit } from '../src/audit/audit-log.ts';
import type { Database } from '../src/db/database.ts';
import { acquireEmbeddedServer } from '../src/db/embedded.ts';
import { maintainLogPartitions } from '../src/db/log-partitions.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { createBenchDatabase } from './lib/lethe.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    store: { type: 'string', default: 'embedded' },
    seconds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '20' },
  },
});
const totalRows = Number(values.rows);
const appendSeconds = Number(values.seconds);
const queryRuns = Number(values.runs);
/** The console's page size. */
const PAGE_SIZE = 50;
/** Concurrent appenders, as concurrent reads of the API's pool of 10 would be. */
const APPENDERS = 10;
/** Rows per INSERT ... SELECT of the load, so that progress shows and no statement runs for many minutes. */
const LOAD_CHUNK = 1_000_000;
/** The loaded rows span this many days back from now: five month partitions. */
const SPAN_DAYS = 120;
/** Distinct subjects of the loaded rows; each appears in about 2 x rows / ENTITIES entries. */
const ENTITIES = 1_000_000;
/** No query is run for longer than this in total, whatever `--runs` says. */
const QUERY_BUDGET_MS = 30_000;

/** The entity id the loaded rows give subject `index` (a UUID, as Lethe's entity ids are). */
const entitySql = (index: string) => `md5((${index})::text)::uuid::text`;
/** The row whose first subject and datastore are looked up: a subject-rights entry at any `--rows`. */
const SUBJECT_ROW = Math.floor(totalRows / 2) + 1;
const SUBJECT = (SUBJECT_ROW * 7919) % ENTITIES;
const SUBJECT_DATASTORE = ['shop', 'crm', 'billing'][SUBJECT_ROW % 3] as string;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function loadAverage(): string {
  return os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

interface Latencies {
  p50: number;
  p99: number;
  count: number;
}

function latencies(samples: number[]): Latencies {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), count: sorted.length };
}

interface Store {
  url: string;
  dispose(): Promise<void>;
}

async function openStore(kind: string): Promise<Store> {
  if (kind === 'postgres') {
    const database = await createBenchDatabase(
      process.env.LETHE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
    );
    return { url: database.url, dispose: () => database.drop() };
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'lethe-bench-audit-'));
  const server = await acquireEmbeddedServer(dataDir);
  return {
    url: server.connectionString,
    async dispose() {
      await server.release();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

interface AppendResult {
  entriesPerSecond: number;
  p50: number;
  p99: number;
  /** Entries per commit: how many reads one group commit served. */
  entriesPerCommit: number;
}

async function commits(db: Database): Promise<number> {
  const { rows } = await db.query<{ commits: number }>(
    'SELECT xact_commit::int8 AS commits FROM pg_stat_database WHERE datname = current_database()',
  );
  return Number(rows[0]?.commits ?? 0);
}

/** APPENDERS loops, each appending one read's entry after the other, as the read path does. */
async function measureAppend(db: Database): Promise<AppendResult> {
  const readEntry = (appender: number, index: number): AuditEntry => ({
    action: 'entity.get-by-id',
    datastore: 'shop',
    entityIds: [`bench-${appender}-${index}`],
    actor: 'api-key:key_bench',
    requestId: `req-bench-${appender}-${index}`,
    clientAddress: '127.0.0.1',
    details: { requested: 1, found: 1 },
  });
  for (let index = 0; index < 200; index += 1) await appendAudit(db, readEntry(APPENDERS, index));
  const samples: number[] = [];
  // The statistics collector counts this process's own statements too: the two reads below add two.
  const commitsBefore = await commits(db);
  const started = performance.now();
  const deadline = started + appendSeconds * 1000;
  await Promise.all(
    Array.from({ length: APPENDERS }, async (_, appender) => {
      for (let index = 0; performance.now() < deadline; index += 1) {
        const sent = performance.now();
        await appendAudit(db, readEntry(appender, index));
        samples.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = performance.now() - started;
  // pg_stat_database is updated when a backend reports, at most about a second late.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const committed = (await commits(db)) - commitsBefore - 1;
  const { p50, p99 } = latencies(samples);
  return {
    entriesPerSecond: samples.length / (elapsed / 1000),
    p50,
    p99,
    entriesPerCommit: samples.length / Math.max(1, committed),
  };
}

/** The console's typical reads of the log, each as one listAudit call. */
function consoleQueries(now: Date, subject: string): { name: string; filter: AuditFilter }[] {
  const page = { page: 1, size: PAGE_SIZE };
  return [
    { name: 'no filter, page 1', filter: page },
    { name: 'no filter, page 100', filter: { page: 100, size: PAGE_SIZE } },
    { name: 'datastore', filter: { ...page, datastore: 'crm' } },
    { name: 'entity id', filter: { ...page, entityId: subject } },
    { name: 'datastore + entity id', filter: { ...page, datastore: SUBJECT_DATASTORE, entityId: subject } },
    { name: 'actor (an API key)', filter: { ...page, actor: 'api-key:key_07' } },
    { name: 'action family (api-key)', filter: { ...page, action: 'api-key' } },
    { name: 'action (entity.delete)', filter: { ...page, action: 'entity.delete' } },
    {
      name: 'last 24 hours',
      filter: { ...page, from: new Date(now.getTime() - 24 * 3600 * 1000), to: now },
    },
  ];
}

interface QueryResult extends Latencies {
  name: string;
  total: number;
}

async function measureQueries(db: Database, subject: string): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const { name, filter } of consoleQueries(new Date(), subject)) {
    const samples: number[] = [];
    let total = 0;
    const budgetEnd = performance.now() + QUERY_BUDGET_MS;
    // One run not counted (caches, the prepared statement), then up to `runs` within the budget.
    await listAudit(db, filter);
    while (samples.length < queryRuns && (samples.length === 0 || performance.now() < budgetEnd)) {
      const started = performance.now();
      total = (await listAudit(db, filter)).total;
      samples.push(performance.now() - started);
    }
    results.push({ name, total, ...latencies(samples) });
  }
  return results;
}

/** Loads `rows` rows shaped like the read path's and the management changes' entries, oldest first. */
async function loadRows(db: Database, rows: number): Promise<number> {
  await db.query(`SELECT lethe_ensure_month_partitions('audit_log', now() - make_interval(days => $1), 3)`, [
    SPAN_DAYS,
  ]);
  const started = performance.now();
  for (let first = 1; first <= rows; first += LOAD_CHUNK) {
    const last = Math.min(rows, first + LOAD_CHUNK - 1);
    // Row g: 95 % subject-rights entries of datastores shop, crm and billing with 1-3 subjects each,
    // through 20 API keys; 5 % management changes by 5 operators, without datastore or subject.
    await db.query(
      `INSERT INTO audit_log (at, action, datastore, entity_ids, actor, request_id, client_address, details)
       SELECT now() - make_interval(days => $3) + (g - 1) * make_interval(days => $3) / $4,
              CASE WHEN g % 20 = 0 THEN (ARRAY['api-key.issue', 'api-key.revoke', 'connection.update',
                     'privacy-request.approve', 'datastore.create'])[1 + (g / 20) % 5]
                   ELSE (ARRAY['entity.get-by-id', 'entity.get-by-id', 'entity.get-by-id', 'entity.get-by-id',
                     'entity.get-by-identity', 'entity.get-by-identity', 'entity.create', 'attribute.update',
                     'file.download', 'entity.delete', 'user.sar', 'user.forget'])[1 + (g * 7) % 12] END,
              CASE WHEN g % 20 = 0 THEN NULL ELSE (ARRAY['shop', 'crm', 'billing'])[1 + g % 3] END,
              CASE WHEN g % 20 = 0 THEN '{}'
                   WHEN g % 3 = 0 THEN ARRAY[${entitySql('(g * 7919) % $5')}]
                   WHEN g % 3 = 1 THEN ARRAY[${entitySql('(g * 7919) % $5')}, ${entitySql('(g * 7919 + 1) % $5')}]
                   ELSE ARRAY[${entitySql('(g * 7919) % $5')}, ${entitySql('(g * 7919 + 1) % $5')},
                              ${entitySql('(g * 7919 + 2) % $5')}] END,
              CASE WHEN g % 20 = 0 THEN 'user:operator-' || (g / 20) % 5
                   ELSE 'api-key:key_' || lpad(((g / 3) % 20)::text, 2, '0') END,
              'req-' || g,
              '10.0.' || (g % 250) || '.' || (g / 250) % 250,
              CASE WHEN g % 20 = 0 THEN jsonb_build_object('key', 'k' || g % 100)
                   ELSE jsonb_build_object('requested', 1 + g % 3, 'found', 1 + g % 3) END
         FROM generate_series($1::int8, $2::int8) AS g`,
      [first, last, SPAN_DAYS, rows, ENTITIES],
    );
    log(
      `  loaded ${last.toLocaleString('en')} rows (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  const loadMs = performance.now() - started;
  // As autovacuum leaves past months in steady state (and not during the measurement that follows: the
  // rows just loaded pass its insert threshold): statistics, and the visibility map of index-only scans.
  const vacuumStarted = performance.now();
  await db.exec('VACUUM (ANALYZE) audit_log');
  log(`  VACUUM (ANALYZE) ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
  // The load's WAL (gigabytes) sets off checkpoints that would otherwise run into the measurement, and
  // after each one every page first written again costs a full-page image in the WAL.
  const checkpointStarted = performance.now();
  await db.exec('CHECKPOINT');
  log(`  CHECKPOINT ${((performance.now() - checkpointStarted) / 1000).toFixed(1)} s`);
  return loadMs;
}

async function sizes(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ name: string; bytes: number }>(
    `SELECT 'table (heap + TOAST)' AS name, sum(pg_table_size(relid))::int8 AS bytes
       FROM pg_partition_tree('audit_log') WHERE isleaf
     UNION ALL
     SELECT index.indexrelid::regclass::text, sum(pg_relation_size(tree.relid))::int8
       FROM pg_index index, pg_partition_tree(index.indexrelid) tree
      WHERE index.indrelid = 'audit_log'::regclass AND tree.isleaf
      GROUP BY 1`,
  );
  return rows.map((row) => `${row.name}: ${(Number(row.bytes) / 2 ** 20).toFixed(0)} MiB`);
}

function ratio(full: number, empty: number): string {
  return `${(full / empty).toFixed(2)}x`;
}

/** Retention dropping the oldest loaded month, through the upkeep every Lethe process runs. */
async function measureRetention(db: Database): Promise<void> {
  const { rows } = await db.query<{ ends: Date }>(
    `SELECT date_trunc('month', (now() - make_interval(days => $1)) AT TIME ZONE 'UTC')
              AT TIME ZONE 'UTC' + interval '1 month' AS ends`,
    [SPAN_DAYS],
  );
  const oldestMonthEnds = new Date(rows[0]?.ends ?? Date.now());
  // The retention whose cutoff lies within a day after the oldest month's end: that month alone goes.
  const retentionDays = Math.floor((Date.now() - oldestMonthEnds.getTime()) / 86_400_000);
  const deletedBefore = await deletedTuples(db);
  const rowsBefore = await countRows(db);
  const started = performance.now();
  const dropped = await maintainLogPartitions(db, retentionDays);
  const dropMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const rowsAfter = await countRows(db);
  log(
    `retention ${retentionDays} days: dropped ${dropped.join(', ')} in ${dropMs.toFixed(0)} ms; ` +
      `${(rowsBefore - rowsAfter).toLocaleString('en')} audit rows gone, ` +
      `rows deleted by DELETE: ${(await deletedTuples(db)) - deletedBefore} (load average ${loadAverage()})`,
  );
}

async function deletedTuples(db: Database): Promise<number> {
  const { rows } = await db.query<{ deleted: number }>(
    `SELECT coalesce(sum(n_tup_del), 0)::int8 AS deleted FROM pg_stat_user_tables
      WHERE relname LIKE 'audit\\_log%'`,
  );
  return Number(rows[0]?.deleted ?? 0);
}

async function countRows(db: Database): Promise<number> {
  const { rows } = await db.query<{ count: number }>('SELECT count(*)::int8 AS count FROM audit_log');
  return Number(rows[0]?.count ?? 0);
}

const store = await openStore(values.store ?? 'embedded');
const db = await openPostgres(store.url, { kind: 'postgres' });
try {
  await migrate(db);
  await maintainLogPartitions(db, 0);
  const version = (await db.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
  log(
    `audit log bench: ${values.store} PostgreSQL ${version}, ${totalRows.toLocaleString('en')} rows, ${os.cpus().length} cores`,
  );
  const subject = (await db.query<{ id: string }>(`SELECT ${entitySql('$1::int8')} AS id`, [SUBJECT])).rows[0]
    ?.id as string;

  log(`\nempty log (load average ${loadAverage()})`);
  const emptyAppend = await measureAppend(db);
  const emptyQueries = await measureQueries(db, subject);
  log(`  append: ${emptyAppend.entriesPerSecond.toFixed(0)} entries/s (load average ${loadAverage()})`);

  log(`\nloading ${totalRows.toLocaleString('en')} rows (load average ${loadAverage()})`);
  const loadMs = await loadRows(db, totalRows);
  log(`  load: ${(loadMs / 1000).toFixed(0)} s, ${(totalRows / (loadMs / 1000)).toFixed(0)} rows/s`);
  for (const line of await sizes(db)) log(`  ${line}`);

  log(`\n${totalRows.toLocaleString('en')} rows in place (load average ${loadAverage()})`);
  const fullAppend = await measureAppend(db);
  const fullQueries = await measureQueries(db, subject);
  log(`  measured (load average ${loadAverage()})`);

  log('\n| measurement | empty | with rows | ratio |');
  log('| --- | --- | --- | --- |');
  log(
    `| append, ${APPENDERS} appenders: entries/s | ${emptyAppend.entriesPerSecond.toFixed(0)} | ` +
      `${fullAppend.entriesPerSecond.toFixed(0)} | ${ratio(fullAppend.entriesPerSecond, emptyAppend.entriesPerSecond)} |`,
  );
  log(
    `| append p50 / p99 ms | ${emptyAppend.p50.toFixed(1)} / ${emptyAppend.p99.toFixed(1)} | ` +
      `${fullAppend.p50.toFixed(1)} / ${fullAppend.p99.toFixed(1)} | ${ratio(fullAppend.p99, emptyAppend.p99)} (p99) |`,
  );
  log(
    `| append: entries per commit | ${emptyAppend.entriesPerCommit.toFixed(1)} | ${fullAppend.entriesPerCommit.toFixed(1)} | |`,
  );
  for (const [index, empty] of emptyQueries.entries()) {
    const full = fullQueries[index] as QueryResult;
    log(
      `| listAudit ${empty.name}: p50 / p99 ms (runs; total) | ${empty.p50.toFixed(1)} / ${empty.p99.toFixed(1)} ` +
        `(${empty.count}; ${empty.total}) | ${full.p50.toFixed(1)} / ${full.p99.toFixed(1)} ` +
        `(${full.count}; ${full.total.toLocaleString('en')}) | ${ratio(full.p50, empty.p50)} (p50) |`,
    );
  }
  log('');
  await measureRetention(db);
} finally {
  await db.close();
  await store.dispose();
}
