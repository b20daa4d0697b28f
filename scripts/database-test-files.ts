// Prints the test files whose result can depend on which PostgreSQL serves them beyond the statements it
// accepts, for CI's pass on PostgreSQL 15, the oldest version Lethe runs on (`npm run test:postgres`,
// .ci/run).
//
// That every statement Lethe sends is one PostgreSQL 15 accepts is proven apart, for the whole suite at
// once: the embedded run records each distinct statement and CI prepares every one on PostgreSQL 15
// (test/helpers/statement-replay.ts). What preparing cannot show is what this list runs again: a file is
// in when it reaches the helper that hands out test databases (test/helpers/database.ts), drives no
// browser, and
// - reads the planner's choices (EXPLAIN, the statements a store function sends), or the server's
//   catalogues, statistics or locks, which change between versions;
// - runs migrations from an empty or an earlier schema: DDL, which PREPARE does not take;
// - tests the job queue, the server's own concurrency (row locks, SKIP LOCKED, LISTEN), or what survives a
//   lost connection: test/jobs/, test/reliability/, test/db/;
// - says so in a line starting `// On PostgreSQL 15 too:` with its reason.
// The hostile-input file is left out: the chaos run repeats it on PostgreSQL 15 with 10,000 cases.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEST_DIR = path.join(ROOT, 'test');
const DRIVES_A_BROWSER = /\blaunchBrowser\(/;
const SERVER_DEPENDENT = [
  /\bEXPLAIN\b|recordingStatements\(/,
  /\bpg_(?:catalog|class|inherits|partition\w*|locks|stat\w*|advisory\w*|database|indexes)\b/,
  /migrated: false|earlier-layout|layout-move-child/,
  /^\/\/ On PostgreSQL 15 too:/m,
];
const SERVER_DEPENDENT_FOLDERS = ['jobs', 'reliability', 'db'];
/** Relative to test/. */
export const REPEATED_BY_CHAOS_RUN = new Set(['hostile/arbitrary-input.test.ts']);

const IMPORT_SPECIFIER =
  /(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** What `file` imports from `testDir`; a path quoted in a string (a lint test's planted import) that names no file is skipped. */
function relativeImports(file: string, testDir: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT_SPECIFIER)]
    .map((match) => path.resolve(path.dirname(file), (match[1] ?? match[2]) as string))
    .filter(
      (imported) =>
        imported.startsWith(testDir + path.sep) && imported.endsWith('.ts') && existsSync(imported),
    );
}

/** Every file of `testDir` that `file` reaches through relative imports, itself included. */
function reachable(file: string, testDir: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const imported of relativeImports(file, testDir)) reachable(imported, testDir, seen);
  return seen;
}

/** The picked test files of `testDir` (test/ by default), as paths relative to it. */
export function databaseTestFiles(testDir = TEST_DIR): string[] {
  const databaseHelper = path.join(testDir, 'helpers/database.ts');
  return readdirSync(testDir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .sort()
    .filter((file) => {
      const absolute = path.join(testDir, file);
      if (REPEATED_BY_CHAOS_RUN.has(file) || !reachable(absolute, testDir).has(databaseHelper)) return false;
      const source = readFileSync(absolute, 'utf8');
      if (DRIVES_A_BROWSER.test(source)) return false;
      return (
        SERVER_DEPENDENT_FOLDERS.includes(file.split(path.sep)[0] ?? '') ||
        SERVER_DEPENDENT.some((pattern) => pattern.test(source))
      );
    });
}

if (import.meta.main) {
  process.stdout.write(
    databaseTestFiles()
      .map((file) => path.join('test', file))
      .join('\n') + '\n',
  );
}
