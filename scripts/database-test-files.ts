// Prints the test files whose result can depend on which PostgreSQL serves them, for CI's second pass of
// the suite on PostgreSQL 15, the oldest version Lethe runs on (`npm run test:postgres`, .ci/run).
//
// A file is in when its relative imports, followed through test/, reach the helper that hands out test
// databases (test/helpers/database.ts). Two kinds are left out, each run in full by the embedded pass:
// - files that never open a test database (lint rules, documents, pure functions): a second server
//   changes nothing they do;
// - files that drive Chromium (they call test/console/browser.ts's `launchBrowser`): they click through
//   the console and the public pages, whose SQL the API tests of the same rooms already run on both
//   servers, and they are the suite's dearest files in CPU.
// The hostile-input file is left out too: the chaos run repeats it on PostgreSQL 15 with 10,000 cases.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEST_DIR = path.join(ROOT, 'test');
const DATABASE_HELPER = path.join(TEST_DIR, 'helpers/database.ts');
const DRIVES_A_BROWSER = /\blaunchBrowser\(/;
export const REPEATED_BY_CHAOS_RUN = new Set([path.join(TEST_DIR, 'hostile/arbitrary-input.test.ts')]);

const IMPORT_SPECIFIER =
  /(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'|import\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** What `file` imports from test/; a path quoted in a string (a lint test's planted import) that names no file is skipped. */
function relativeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(IMPORT_SPECIFIER)]
    .map((match) => path.resolve(path.dirname(file), (match[1] ?? match[2]) as string))
    .filter(
      (imported) =>
        imported.startsWith(TEST_DIR + path.sep) && imported.endsWith('.ts') && existsSync(imported),
    );
}

/** Every file of test/ that `file` reaches through relative imports, itself included. */
function reachable(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const imported of relativeImports(file)) reachable(imported, seen);
  return seen;
}

export function databaseTestFiles(): string[] {
  const testFiles = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => path.join(TEST_DIR, file))
    .sort();
  return testFiles.filter((file) => {
    if (REPEATED_BY_CHAOS_RUN.has(file)) return false;
    return reachable(file).has(DATABASE_HELPER) && !DRIVES_A_BROWSER.test(readFileSync(file, 'utf8'));
  });
}

if (import.meta.main) {
  process.stdout.write(
    databaseTestFiles()
      .map((file) => path.relative(ROOT, file))
      .join('\n') + '\n',
  );
}
