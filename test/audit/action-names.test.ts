// One naming scheme for audit actions (src/audit/action-names.ts): every action the code writes is
// `<thing>.<verb>` in kebab-case once read through the mapping, and entries written under the older
// `privacy_request.*` spelling are listed, and found by a family filter, under `privacy-request.*`.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { canonicalAction } from '../../src/audit/action-names.ts';
import { listAudit, recordAudit } from '../../src/audit/audit-log.ts';
import type { Database } from '../../src/db/database.ts';
import { maintainLogPartitions } from '../../src/db/log-partitions.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { ACCESS_ACTION, ERASURE_ACTION } from '../../src/privacy-requests/rules/run-repository.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const SCHEME = /^[a-z]+(-[a-z]+)*(\.[a-z]+(-[a-z]+)*)+$/;
const SRC = path.resolve(import.meta.dirname, '../../src');

/** Every action literal the server writes: `action: '…'`, recordChange(…, '…', …) and *_ACTION constants. */
async function writtenActions(): Promise<string[]> {
  const found = new Set<string>();
  const files = (await readdir(SRC, { recursive: true })).filter((file) => file.endsWith('.ts'));
  for (const file of files) {
    const text = await readFile(path.join(SRC, file), 'utf8');
    const patterns = [
      /recordChange\(\s*\w+,\s*\w+,\s*'([^']+)'/g,
      /\baction: '([a-z_-]+\.[^']+)'/g,
      /_ACTION = '([^']+)'/g,
    ];
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1] as string);
  }
  return [...found].sort();
}

describe('audit action names', () => {
  it('every action the server writes reads as <thing>.<verb> in kebab-case', async () => {
    const actions = await writtenActions();
    assert.ok(actions.length > 30, `found only ${actions.length} actions`);
    assert.ok(actions.includes(ERASURE_ACTION) && actions.includes('privacy-request.approve'));
    const offScheme = actions.filter((action) => !SCHEME.test(canonicalAction(action)));
    assert.deepEqual(offScheme, []);
  });

  describe('entries written under the old spelling', () => {
    let database: TestDatabase;
    let db: Database;
    before(async () => {
      database = await createTestDatabase();
      db = await openPostgres(database.url, { kind: 'postgres' });
      await maintainLogPartitions(db, 0);
      for (const action of [ACCESS_ACTION, ERASURE_ACTION, 'privacy-request.approve', 'policy.upsert']) {
        await recordAudit(db, { action, actor: 'client:root' });
      }
    });
    after(async () => {
      await db.close();
      await database.drop();
    });

    const actionsOf = async (action?: string) =>
      (await listAudit(db, { action, page: 1, size: 50 })).rows.map((row) => row.action).sort();

    it('are listed under the scheme', async () => {
      assert.deepEqual(await actionsOf(), [
        'policy.upsert',
        'privacy-request.access',
        'privacy-request.approve',
        'privacy-request.erasure',
      ]);
    });

    it('are found by the family and by the action, in either spelling', async () => {
      const family = ['privacy-request.access', 'privacy-request.approve', 'privacy-request.erasure'];
      assert.deepEqual(await actionsOf('privacy-request'), family);
      assert.deepEqual(await actionsOf('privacy_request'), family);
      assert.deepEqual(await actionsOf('privacy-request.erasure'), ['privacy-request.erasure']);
      assert.deepEqual(await actionsOf(ERASURE_ACTION), ['privacy-request.erasure']);
      assert.deepEqual(await actionsOf('policy'), ['policy.upsert']);
    });
  });
});
