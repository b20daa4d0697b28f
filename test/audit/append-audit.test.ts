import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AuditEntry, appendAudit, listAudit } from '../../src/audit/audit-log.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// appendAudit group-commits the entries of concurrent reads: every call resolves only once its own
// entry is committed, and a failed statement fails exactly the calls whose entries it carried.
describe('appendAudit: group commit of audit entries outside transactions', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  const entry = (requestId: string, action = 'bench.read'): AuditEntry => ({
    action,
    datastore: 'audit-test',
    entityIds: [requestId],
    actor: 'api-key:test',
    requestId,
    details: { requested: 1 },
  });

  const stored = async (action: string) =>
    (await listAudit(service.services.db, { action, page: 1, size: 1000 })).rows;

  it('writes every entry of 120 concurrent calls, each once, before any call resolves', async () => {
    const requestIds = Array.from({ length: 120 }, (_, index) => `req-${index}`);
    await Promise.all(requestIds.map((id) => appendAudit(service.services.db, entry(id, 'group.read'))));
    const rows = await stored('group.read');
    assert.deepEqual(rows.map((row) => row.request_id).sort(), [...requestIds].sort());
    assert.ok(rows.every((row) => row.entity_ids.length === 1 && row.datastore === 'audit-test'));
  });

  it('fails every call of a failed batch, writes none of it, and keeps serving later calls', async () => {
    const db = service.services.db;
    const first = appendAudit(db, entry('first', 'batch.read'));
    // Queued behind `first`: one statement carries both, and the null action violates NOT NULL.
    const broken = appendAudit(db, { ...entry('broken'), action: null as unknown as string });
    const sharing = appendAudit(db, entry('sharing', 'batch.read'));
    await first;
    await assert.rejects(broken);
    await assert.rejects(sharing);
    await appendAudit(db, entry('later', 'batch.read'));
    const ids = (await stored('batch.read')).map((row) => row.request_id).sort();
    assert.deepEqual(ids, ['first', 'later']);
  });
});
