// CI's PostgreSQL 15 pass runs the files scripts/database-test-files.ts picks, beside the replay of every
// statement the suite sent (test/helpers/statement-replay.ts). The pick is read off the files themselves;
// here it runs on a planted tree, one file for each reason to be in or out, and on the real one.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { databaseTestFiles } from '../../scripts/database-test-files.ts';

const OPENS_A_DATABASE = "import { createTestDatabase } from '../helpers/database.ts';\n";

describe('the PostgreSQL 15 pick', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'lethe-pick-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  function plant(file: string, source: string): void {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), source);
  }

  plant('helpers/database.ts', 'export const createTestDatabase = () => undefined;\n');
  plant('helpers/service.ts', OPENS_A_DATABASE);
  plant('rooms/plans.test.ts', `${OPENS_A_DATABASE}const plan = 'EXPLAIN (FORMAT JSON) SELECT 1';\n`);
  plant('rooms/catalogue.test.ts', `${OPENS_A_DATABASE}const sql = 'SELECT relname FROM pg_class';\n`);
  plant('rooms/migrations.test.ts', `${OPENS_A_DATABASE}createTestDatabase({ migrated: false });\n`);
  plant(
    'rooms/through-a-helper.test.ts',
    "import { startTestService } from '../helpers/service.ts';\n// On PostgreSQL 15 too: a lock.\n",
  );
  plant('jobs/queue.test.ts', OPENS_A_DATABASE);
  plant('rooms/plain-api.test.ts', `${OPENS_A_DATABASE}// an API test: its statements are replayed\n`);
  plant('rooms/no-database.test.ts', "const plan = 'EXPLAIN SELECT 1';\n");
  plant('rooms/browser.test.ts', `${OPENS_A_DATABASE}launchBrowser(); const sql = 'EXPLAIN SELECT 1';\n`);
  plant('hostile/arbitrary-input.test.ts', `${OPENS_A_DATABASE}const sql = 'EXPLAIN SELECT 1';\n`);

  it('takes plans, catalogues, migrations, the queue and files that say why; leaves out the rest', () => {
    assert.deepEqual(databaseTestFiles(root), [
      'jobs/queue.test.ts',
      'rooms/catalogue.test.ts',
      'rooms/migrations.test.ts',
      'rooms/plans.test.ts',
      'rooms/through-a-helper.test.ts',
    ]);
  });

  it("on the project's own tree, keeps the files of each kind and leaves out the API tests", () => {
    const picked = new Set(databaseTestFiles());
    for (const file of [
      'datastore/generic-plans.test.ts',
      'datastore/entity-layout.test.ts',
      'db/log-partitions.test.ts',
      'jobs/queue.test.ts',
      'privacy-requests/crash.test.ts',
    ]) {
      assert.ok(picked.has(file), file);
    }
    for (const file of [
      'privacy-requests/lifecycle.test.ts',
      'console/console.test.ts',
      'crypto/secret-box.test.ts',
      'hostile/arbitrary-input.test.ts',
    ]) {
      assert.equal(picked.has(file), false, file);
    }
  });
});
