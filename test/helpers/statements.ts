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

/**
 * The elements of a bytea[] parameter sent in PostgreSQL's binary array format (src/db/binary-array.ts):
 * ndim, has-nulls, element type, then per dimension its length and lower bound, then each element's
 * length (-1: NULL) and bytes.
 */
function byteaArrayElements(array: Buffer): (Buffer | null)[] {
  const dimensions = array.readInt32BE(0);
  const count = dimensions === 0 ? 0 : array.readInt32BE(12);
  let offset = 12 + dimensions * 8;
  const elements: (Buffer | null)[] = [];
  for (let index = 0; index < count; index += 1) {
    const length = array.readInt32BE(offset);
    offset += 4;
    elements.push(length < 0 ? null : array.subarray(offset, offset + length));
    offset += Math.max(length, 0);
  }
  return elements;
}

/** A statement's parameters as SQL literals, for EXECUTE under EXPLAIN: a binary bytea[] as an ARRAY. */
export function parameterLiterals(sql: string, params: readonly unknown[]): string[] {
  return params.map((value, index) =>
    Buffer.isBuffer(value) && sql.includes(`$${index + 1}::bytea[]`)
      ? `ARRAY[${byteaArrayElements(value).map(sqlLiteral).join(', ')}]::bytea[]`
      : sqlLiteral(value),
  );
}
