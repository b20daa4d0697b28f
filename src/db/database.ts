// One small interface over the store. Every query in Lethe is written once against it; the embedded
// server and an external PostgreSQL differ only in how the adapter reaches them (src/db/open.ts).

export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
  /** Runs parameterless, possibly multi-statement SQL (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  /** 'embedded': the server Lethe runs itself in the data dir; 'postgres': DATABASE_URL. */
  readonly kind: 'embedded' | 'postgres';
  /** Where the server listens, for the job queue's own pool. */
  readonly connectionString: string;
  /**
   * Runs `work` inside one transaction; inside it, use only the `tx` handed in. `closeAfter` closes its
   * connection afterwards instead of keeping it for the next caller: for work whose server process would
   * go on holding memory the service has no use for (the migrations leave every catalog in its caches).
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: { closeAfter?: boolean }): Promise<T>;
  close(): Promise<void>;
}

/** Errors that mean "the store cannot be reached right now", answered as 503 rather than 500. */
export function isStoreUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') {
    return (
      error instanceof Error &&
      /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(error.message)
    );
  }
  return [
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    '57P01',
    '57P02',
    '57P03',
    '08000',
    '08001',
    '08003',
    '08006',
  ].includes(code);
}

/**
 * SQLSTATEs by which PostgreSQL refuses a value a caller sent (data exceptions such as a NUL character in
 * text, an index entry too large). They mean the input checks let something through: the caller's fault,
 * never a 500. The statement failed, so nothing was written by it.
 */
const UNSTORABLE_VALUE_CODES = new Set(['22001', '22003', '22021', '22P02', '22P05', '54000']);

export function isUnstorableValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return UNSTORABLE_VALUE_CODES.has(code);
  return error instanceof Error && /invalid byte sequence for encoding "UTF8": 0x00/.test(error.message);
}
