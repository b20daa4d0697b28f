// Every statement the suite sent, prepared again on the oldest PostgreSQL Lethe runs on.
//
// CI runs the whole suite on the embedded server (PostgreSQL 18) and, on PostgreSQL 15, only the files
// whose result depends on the server beyond its SQL dialect (scripts/database-test-files.ts). What a
// second full pass would add, that every statement Lethe sends is one PostgreSQL 15 accepts, costs minutes
// where this costs seconds: with LETHE_RECORD_STATEMENTS set, the embedded server runs pg_stat_statements,
// and after the last test file the global teardown keeps each distinct statement that PostgreSQL 18
// prepares on the migrated schema (recordStatements). `scripts/replay-statements.ts` then prepares each on
// PostgreSQL 15, on the same schema, and fails on the first refused. PREPARE parses, resolves every name,
// type, function and operator and plans the statement without running it, so a function, a syntax or a
// cast that only a newer server has is refused.
import { writeFile } from 'node:fs/promises';
import pg from 'pg';

/** Server settings that make the embedded server count every statement (src/db/embedded.ts `settings`). */
export const RECORDING_SETTINGS: Readonly<Record<string, string>> = {
  shared_preload_libraries: 'pg_stat_statements',
  // The suite sends a few thousand distinct statements; past the bound the least used would be forgotten.
  'pg_stat_statements.max': '50000',
  'pg_stat_statements.track_utility': 'off',
};

/** Statements PREPARE takes (PostgreSQL's own list), after any leading comments. */
const PREPARABLE =
  /^\s*(?:(?:--[^\n]*\n|\/\*[\s\S]*?\*\/)\s*)*(?:select|insert|update|delete|with|values)\b/i;

export function isPreparable(sql: string): boolean {
  return PREPARABLE.test(sql);
}

/**
 * pg_stat_statements replaces a typed literal's string with a parameter (`interval '30 days'` becomes
 * `interval $1`), which is no longer SQL; written as a cast it means the same and prepares.
 */
const TYPED_LITERAL =
  /\b(interval|timestamptz|timestamp|date|time|jsonb|json|uuid|numeric|bytea)\s+\$(\d+)/gi;

export function asPreparable(normalized: string): string {
  return normalized.replace(TYPED_LITERAL, (_, type: string, number: string) => `$${number}::${type}`);
}

export interface RecordedStatements {
  /** Distinct preparable statements the server saw. */
  seen: number;
  /** Those PostgreSQL 18 prepared on the migrated schema: what PostgreSQL 15 must prepare too. */
  statements: string[];
  /** The others, with the recording server's reason: kept so that what the check misses can be read. */
  refusedByRecorder: Refusal[];
}

export interface Refusal {
  sql: string;
  message: string;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The distinct preparable statements a server with RECORDING_SETTINGS has seen, in any database. */
export function seenStatements(serverUrl: string): Promise<string[]> {
  return withClient(serverUrl, async (client) => {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await client.query<{ query: string }>(
      'SELECT DISTINCT query FROM pg_stat_statements ORDER BY query',
    );
    return rows.map((row) => asPreparable(row.query)).filter(isPreparable);
  });
}

/**
 * Prepares each statement on `databaseUrl` and deallocates it; answers those that prepared and those
 * refused, with the server's reason. A statement that names what only a test created, or whose
 * parameter types only its values decided, is refused by every server alike.
 */
export function prepareEach(
  databaseUrl: string,
  statements: readonly string[],
): Promise<{ prepared: string[]; refused: Refusal[] }> {
  return withClient(databaseUrl, async (client) => {
    const prepared: string[] = [];
    const refused: Refusal[] = [];
    for (const sql of statements) {
      try {
        await client.query(`PREPARE lethe_replayed AS ${sql}`);
        await client.query('DEALLOCATE lethe_replayed');
        prepared.push(sql);
      } catch (error) {
        refused.push({ sql, message: (error as Error).message });
      }
    }
    return { prepared, refused };
  });
}

/** Writes what the server has seen and `databaseUrl` (the migrated schema on the same server) prepares. */
export async function recordStatements(serverUrl: string, databaseUrl: string, file: string): Promise<void> {
  const seen = await seenStatements(serverUrl);
  const { prepared, refused } = await prepareEach(databaseUrl, seen);
  const recorded: RecordedStatements = {
    seen: seen.length,
    statements: prepared,
    refusedByRecorder: refused,
  };
  await writeFile(file, JSON.stringify(recorded));
}
