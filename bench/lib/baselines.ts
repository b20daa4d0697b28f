// Same-run baselines: what the machine does without Lethe in the way.
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Pool } from 'undici';
import { load } from './load.ts';
import { ROOT, startChild } from './processes.ts';
import path from 'node:path';

export async function bareFastifyRequestsPerSecond(seconds: number): Promise<number> {
  const hello = await startChild(path.join(ROOT, 'bench/lib/hello-server.ts'), [], {}, '/');
  try {
    return (await load({ url: `${hello.url}/`, seconds, connections: 10 })).requestsPerSecond;
  } finally {
    await hello.stop();
  }
}

const SELECT_ROWS = 1_000;

/** Every read load, the baselines' and Lethe's, starts with this unmeasured warm-up. */
export const readWarmUpSeconds = (seconds: number) => Math.max(1, Math.round(seconds / 3));

/**
 * req/s of Fastify + pg doing one primary-key SELECT per request (bench/lib/select-server.ts, a pool of
 * 10), 10 connections like the get-by-id load, each request naming one of 1,000 rows of 60 random bytes.
 * Every read of Lethe touches the database at least this once.
 */
export async function oneSelectRequestsPerSecond(databaseUrl: string, seconds: number): Promise<number> {
  return selectRequestsPerSecond(databaseUrl, seconds, false);
}

/**
 * The same, with the SELECT and one INSERT into a log in one statement and one commit: the durable work
 * of a Lethe read, whose answer waits for its audit entry's commit. The log is shaped like `audit_log`
 * (sequence key, time, action, ids, actor) without its secondary indexes. The read targets are ratios to
 * this one (issue 29).
 */
export async function auditedSelectRequestsPerSecond(databaseUrl: string, seconds: number): Promise<number> {
  return selectRequestsPerSecond(databaseUrl, seconds, true);
}

async function selectRequestsPerSecond(
  databaseUrl: string,
  seconds: number,
  audited: boolean,
): Promise<number> {
  const suffix = randomBytes(4).toString('hex');
  const table = `bench_select_${suffix}`;
  const logTable = `bench_select_log_${suffix}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`CREATE TABLE ${table} (id uuid PRIMARY KEY, value bytea NOT NULL)`);
    await client.query(
      `INSERT INTO ${table} SELECT gen_random_uuid(), sha512(g::text::bytea) FROM generate_series(1, $1) AS g`,
      [SELECT_ROWS],
    );
    if (audited) {
      await client.query(`CREATE TABLE ${logTable} (
        seq bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), action text NOT NULL,
        entity_ids text[] NOT NULL, actor text NOT NULL)`);
    }
    const { rows } = await client.query<{ id: string }>(`SELECT id FROM ${table} LIMIT 1`);
    const server = await startChild(
      path.join(ROOT, 'bench/lib/select-server.ts'),
      [],
      {
        BENCH_SELECT_DATABASE_URL: databaseUrl,
        BENCH_SELECT_TABLE: table,
        ...(audited ? { BENCH_SELECT_LOG_TABLE: logTable } : {}),
      },
      '/',
    );
    try {
      const result = await load({
        url: `${server.url}/`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: rows[0]?.id }),
        seconds,
        warmUpSeconds: readWarmUpSeconds(seconds),
        connections: 10,
      });
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`the ${audited ? 'audited ' : ''}SELECT baseline failed requests`);
      }
      return result.requestsPerSecond;
    } finally {
      await server.stop();
    }
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}, ${logTable}`);
    await client.end();
  }
}

const ROW_COLUMNS = 'id uuid, entity_id uuid, name text, value bytea, blind bytea';
const ROWS_PER_STATEMENT = 500;
/** As many as the entity/create load keeps in flight. */
const INSERT_CONNECTIONS = 4;

/**
 * Rows/s of plain multi-row INSERTs of rows shaped like stored attributes: 500 rows a statement, made by
 * the client and sent as parameters (unnest of arrays, as Lethe sends its own), 4 connections at once,
 * into an ordinary table without indexes. The table is logged like every table of Lethe's: a temporary
 * table skips the write-ahead log, which no durable writer can.
 */
export async function rawInsertRowsPerSecond(databaseUrl: string, seconds: number): Promise<number> {
  const table = `bench_raw_${randomBytes(4).toString('hex')}`;
  const rows = Array.from({ length: ROWS_PER_STATEMENT }, (_, n) => ({
    entityId: randomUUID(),
    name: `attribute_${n}`,
    value: randomBytes(60),
    blind: randomBytes(32),
  }));
  const params = [
    rows.map(() => randomUUID()),
    rows.map((row) => row.entityId),
    rows.map((row) => row.name),
    rows.map((row) => row.value),
    rows.map((row) => row.blind),
  ];
  const statement = `INSERT INTO ${table}
    SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bytea[], $5::bytea[])`;
  const measure = async (lanes: ((sql: string, values?: unknown[]) => Promise<unknown>)[]) => {
    await lanes[0]?.(`CREATE TABLE ${table} (${ROW_COLUMNS})`);
    try {
      let inserted = 0;
      const started = performance.now();
      const deadline = started + seconds * 1000;
      await Promise.all(
        lanes.map(async (query) => {
          while (performance.now() < deadline) {
            await query(statement, params);
            inserted += ROWS_PER_STATEMENT;
          }
        }),
      );
      return inserted / ((performance.now() - started) / 1000);
    } finally {
      await lanes[0]?.(`DROP TABLE ${table}`);
    }
  };
  const pool = new pg.Pool({ connectionString: databaseUrl, max: INSERT_CONNECTIONS });
  try {
    const lane = (sql: string, values?: unknown[]) =>
      pool.query(values ? { name: 'bench_raw_insert', text: sql, values } : sql);
    return await measure(Array.from({ length: INSERT_CONNECTIONS }, () => lane));
  } finally {
    await pool.end();
  }
}

/** Keep-alive POSTs/s from Node to the local receiver, 10 in flight. */
export async function rawPostsPerSecond(receiverUrl: string, seconds: number): Promise<number> {
  const pool = new Pool(receiverUrl, { connections: 10 });
  const body = JSON.stringify({
    privacy_request_id: 'pri_baseline',
    direction: 'one_way',
    callback_type: 'pre',
  });
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const lane = async () => {
    while (performance.now() < deadline) {
      const response = await pool.request({
        path: '/',
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
      await response.body.dump();
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: 10 }, lane));
  await pool.close();
  return done / ((performance.now() - started) / 1000);
}

/** The server version the run measured against. */
export async function storeVersion(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return `PostgreSQL ${rows[0]?.server_version ?? 'unknown'}`;
  } finally {
    await client.end();
  }
}
