import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { auditedRead } from '../../src/audit/audit-log.ts';
import type { Database } from '../../src/db/database.ts';
import { SubjectService } from '../../src/datastore/subject-service.ts';
import type { SarMailer } from '../../src/mail/access-report-mail.ts';
import { apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { recordingStatements, type Statement } from '../helpers/statements.ts';

// get-by-id and get-by-identity read and record their audit entry in ONE statement (audit-log.ts's
// auditedRead): one round trip and one commit a read, the entry committed before the read resolves
// (bench/README.md, issue 29: reads queued behind a separate audit INSERT waited on a chain of flushes).
describe('the audited reads: one statement that reads and records', () => {
  let service: TestService;
  let userId: string;
  const MISSING = '00000000-0000-4000-8000-000000000000';

  before(async () => {
    service = await startTestService();
    const api = await apiClient(service, 'audited');
    const created = await api.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'read.me@example.com' }] }],
    });
    userId = created.body[0].id;
  });
  after(() => service.stop());

  /** A SubjectService whose every statement is recorded (no mail is sent by the reads). */
  function recordedSubjects(): { subjects: SubjectService; statements: Statement[] } {
    const db = service.services.db;
    const { queryable, statements } = recordingStatements(db);
    const recording: Database = { ...db, ...queryable, transaction: (work) => db.transaction(work) };
    return {
      subjects: new SubjectService(recording, service.services.keyring, {} as SarMailer),
      statements,
    };
  }

  async function entriesOf(requestId: string) {
    const { rows } = await service.services.db.query<{
      action: string;
      entity_ids: string[];
      details: Record<string, unknown>;
      actor: string;
      client_address: string | null;
    }>('SELECT action, entity_ids, details, actor, client_address FROM audit_log WHERE request_id = $1', [
      requestId,
    ]);
    return rows;
  }

  const context = (requestId: string) => ({
    datastore: 'audited',
    actor: 'api-key:reader',
    requestId,
    clientAddress: '192.0.2.7',
  });

  it('get-by-id sends one statement, and its entry is committed when it resolves', async () => {
    const { subjects, statements } = recordedSubjects();
    const answer = await subjects.getByIds(context('read-by-id'), [userId.toUpperCase(), MISSING]);
    assert.equal(statements.length, 1, statements.map((statement) => statement.sql).join('\n---\n'));
    assert.equal(answer[0]?.error, null);
    assert.equal(answer[1]?.error?.code, 'not_found');
    assert.deepEqual(await entriesOf('read-by-id'), [
      {
        action: 'entity.get-by-id',
        entity_ids: [userId],
        details: { requested: 2, found: 1 },
        actor: 'api-key:reader',
        client_address: '192.0.2.7',
      },
    ]);
  });

  it('get-by-id of no valid id still records the call, finding nothing', async () => {
    const { subjects, statements } = recordedSubjects();
    await subjects.getByIds(context('read-nothing'), ['not-an-id']);
    assert.equal(statements.length, 1);
    const [entry] = await entriesOf('read-nothing');
    assert.deepEqual(entry?.entity_ids, []);
    assert.deepEqual(entry?.details, { requested: 1, found: 0 });
  });

  it('get-by-identity sends one statement, and its entry names each entity found once', async () => {
    const { subjects, statements } = recordedSubjects();
    const answer = await subjects.getByIdentities(context('read-by-identity'), [
      'READ.ME@example.com',
      'read.me@example.com',
      'nobody@example.com',
    ]);
    assert.equal(statements.length, 1);
    assert.deepEqual(
      answer.map((item) => item.entities.map((entity) => entity.id)),
      [[userId], [userId], []],
    );
    const [entry] = await entriesOf('read-by-identity');
    assert.equal(entry?.action, 'entity.get-by-identity');
    assert.deepEqual(entry?.entity_ids, [userId]);
    assert.deepEqual(entry?.details, { requested: 3, found: 1 });
  });

  it("writes no entry when the read's condition to record does not hold", async () => {
    const read = 'SELECT id FROM entities WHERE datastore = $1';
    const entry = { action: 'entity.get-by-id', datastore: 'audited', actor: 'test', requestId: 'condition' };
    const db = service.services.db;
    const refused = auditedRead(read, 1, { recordIf: 'false' })(['audited'], entry);
    assert.equal((await db.query(refused.sql, refused.params)).rows.length, 1, 'the read still reads');
    assert.deepEqual(await entriesOf('condition'), []);
    const recorded = auditedRead(read, 1, { recordIf: '(SELECT count(*) FROM read) = 1' })(
      ['audited'],
      entry,
    );
    await db.query(recorded.sql, recorded.params);
    assert.equal((await entriesOf('condition')).length, 1);
  });
});
