// Same-run baselines: what the machine does without Lethe in the way.
import { PGlite } from '@electric-sql/pglite';
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

const ROW_COLUMNS = 'id uuid, entity_id uuid, name text, value bytea, blind bytea';

/** Rows/s of plain multi-row INSERTs of rows shaped like stored attributes (500 rows a statement). */
export async function rawInsertRowsPerSecond(
  databaseUrl: string | undefined,
  seconds: number,
): Promise<number> {
  const statement = `INSERT INTO bench_raw SELECT gen_random_uuid(), gen_random_uuid(), 'attribute_' || n,
    decode(md5(n::text) || md5(n::text), 'hex'), decode(md5(n::text), 'hex') FROM generate_series(1, 500) AS n`;
  const run = async (query: (sql: string) => Promise<unknown>) => {
    await query(`CREATE TEMP TABLE bench_raw (${ROW_COLUMNS})`);
    let rows = 0;
    const deadline = performance.now() + seconds * 1000;
    const started = performance.now();
    while (performance.now() < deadline) {
      await query(statement);
      rows += 500;
    }
    return rows / ((performance.now() - started) / 1000);
  };
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return await run((sql) => client.query(sql));
    } finally {
      await client.end();
    }
  }
  const pglite = await PGlite.create();
  try {
    return await run((sql) => pglite.exec(sql));
  } finally {
    await pglite.close();
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

/** The server version the run measured against: PostgreSQL's, or the PGlite build's. */
export async function storeVersion(databaseUrl: string | undefined): Promise<string> {
  const sql = 'SHOW server_version';
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ server_version: string }>(sql);
      return `PostgreSQL ${rows[0]?.server_version ?? 'unknown'}`;
    } finally {
      await client.end();
    }
  }
  const pglite = await PGlite.create();
  try {
    const { rows } = await pglite.query<{ server_version: string }>(sql);
    return `PGlite (PostgreSQL ${rows[0]?.server_version ?? 'unknown'})`;
  } finally {
    await pglite.close();
  }
}
