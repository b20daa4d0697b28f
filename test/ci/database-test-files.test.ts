// CI's PostgreSQL 15 pass runs only the files scripts/database-test-files.ts picks. A file left out by
// mistake would stop being checked on the oldest server we support without anyone noticing, so the pick is
// checked here against a second, cruder reading of the tree: every test file that calls the helpers that
// open a test database, and drives no browser, must be in it (but the one the chaos run repeats).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { databaseTestFiles, REPEATED_BY_CHAOS_RUN } from '../../scripts/database-test-files.ts';

const TEST_DIR = path.resolve(import.meta.dirname, '..');
const picked = new Set(databaseTestFiles().map((file) => path.relative(TEST_DIR, file)));

const OPENS_A_DATABASE = /\b(startTestService|createTestDatabase|createCliStore)\(/;
const DRIVES_A_BROWSER = /\blaunchBrowser\(/;

test('every test file that opens a test database and drives no browser is in the PostgreSQL 15 pass', () => {
  const files = readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.test.ts'),
  );
  const missing = files.filter((file) => {
    const source = readFileSync(path.join(TEST_DIR, file), 'utf8');
    const repeated = REPEATED_BY_CHAOS_RUN.has(path.join(TEST_DIR, file));
    return OPENS_A_DATABASE.test(source) && !DRIVES_A_BROWSER.test(source) && !repeated && !picked.has(file);
  });
  assert.deepEqual(missing, []);
  assert.ok(picked.has('datastore/subject-store.test.ts'));
  assert.ok(picked.has('privacy-requests/crash.test.ts'));
});

test('the pass leaves out browser tests, tests without a database and what the chaos run repeats', () => {
  for (const file of [
    'console/console.test.ts',
    'privacy-center/browser-journey.test.ts',
    'crypto/secret-box.test.ts',
    'cli/startup.test.ts',
    'lint/boundaries.test.ts',
    'hostile/arbitrary-input.test.ts',
  ]) {
    assert.equal(picked.has(file), false, file);
  }
});
