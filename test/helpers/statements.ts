// The statements a store function sends, kept so that a test can look at their plans: EXPLAIN EXECUTE of
// a prepared statement is how a connection's generic plan is seen, and EXECUTE takes no bound
// parameters, so the values are written into it as literals.
import { escapeLiteral } from 'pg';
import type { Queryable } from '../../src/db/database.ts';

export interface Statement {
  sql: string;
  params: readonly unknown[];
}

/** A Queryable over `db` that keeps every statement sent through it, in order. */
export function recordingStatements(db: Queryable): { queryable: Queryable; statements: Statement[] } {
  const statements: Statement[] = [];
  return {
    statements,
    queryable: {
      query: (sql, params = []) => {
        statements.push({ sql, params });
        return db.query(sql, params);
      },
      exec: (sql) => db.exec(sql),
    },
  };
}

/** A parameter value as an SQL literal, for EXECUTE under EXPLAIN. */
export function sqlLiteral(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Buffer.isBuffer(value)) return `'\\x${value.toString('hex')}'::bytea`;
  if (Array.isArray(value) && value.some(Buffer.isBuffer))
    return `ARRAY[${value.map(sqlLiteral).join(', ')}]`;
  if (Array.isArray(value)) return escapeLiteral(`{${value.map((item) => `"${String(item)}"`).join(',')}}`);
  return escapeLiteral(String(value));
}
