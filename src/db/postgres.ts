// The one Database adapter: a pg pool, on the embedded server or on DATABASE_URL. Connection attempts time
// out quickly so that an outage answers 503 instead of holding requests open.
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Database, Queryable, QueryResult } from './database.ts';

const INT8_OID = 20;

/**
 * Statements with parameters run as named prepared statements: each connection parses and plans a
 * statement once instead of on every call (the hot paths of the subject API repeat the same few
 * statements thousands of times a second). The name is derived from the text, so every connection
 * agrees on it; the set of texts is bounded (multi-row INSERTs vary only in their row count).
 */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `lethe_${createHash('sha256').update(sql).digest('base64url').slice(0, 22)}`;
    statementNames.set(sql, name);
  }
  return name;
}

export interface PostgresOptions {
  kind: Database['kind'];
  /** Runs after the pool has closed (the embedded server's release). */
  afterClose?: () => Promise<void>;
}

export async function openPostgres(connectionString: string, options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30000,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reports the outage.
  pool.on('error', () => undefined);

  const over = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await client.query({
        name: params.length > 0 ? statementName(sql) : undefined,
        text: sql,
        values: params as unknown[],
      });
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  });
  const direct = over(pool);

  return {
    kind: options.kind,
    connectionString,
    query: direct.query,
    exec: direct.exec,
    async transaction(work, { closeAfter = false } = {}) {
      const client = await pool.connect();
      let broken = false;
      // A checked-out client has no pool listener: a server lost between two statements of the
      // transaction would otherwise be an unhandled 'error' event and end the process.
      const onConnectionLost = () => {
        broken = true;
      };
      client.on('error', onConnectionLost);
      try {
        await client.query('BEGIN');
        const result = await work(over(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
        throw error;
      } finally {
        client.off('error', onConnectionLost);
        client.release(broken || closeAfter);
      }
    },
    async close() {
      try {
        await pool.end();
      } finally {
        await options.afterClose?.();
      }
    },
  };
}
