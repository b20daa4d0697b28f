// A message exists if and only if the change that causes it committed: when the outbox cannot take the
// message (a constraint added for the test makes its INSERT fail), the change itself rolls back.
// On PostgreSQL 15 too: the test adds a constraint (DDL) and relies on the server rolling back the change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { publishDefaults, subjectSideConfig } from '../helpers/subject-side.ts';

describe('outbox messages share the transaction of their cause', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    // Off the contract on purpose: the tests break the outbox table under a write, whose answer is then an
    // undocumented 500 (an internal failure no client is promised a shape for).
    service = await startTestService(subjectSideConfig(undefined, { requireManualApproval: true }), {
      checkAnswers: false,
    });
    token = await service.rootToken();
    await publishDefaults(service);
  });
  after(() => service.stop());

  const refuse = (kind: string) =>
    service.services.db.query(
      `ALTER TABLE outbox_messages ADD CONSTRAINT test_refuses_${kind} CHECK (kind <> '${kind}')`,
    );
  const allow = (kind: string) =>
    service.services.db.query(`ALTER TABLE outbox_messages DROP CONSTRAINT test_refuses_${kind}`);
  const count = async (sql: string, params: unknown[] = []) =>
    (await service.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params)).rows[0]
      ?.n;

  it('a denial whose message cannot be written is not a denial', async () => {
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ policy_key: 'default_access_policy', identity: { email: 'atomic@example.com' } }],
    });
    const id = created.body.succeeded[0].id as string;
    const logBefore = await count('privacy_request_log WHERE privacy_request_id = $1', [id]);
    await refuse('denied');
    try {
      const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
        token,
        json: { request_ids: [id], reason: 'no' },
      });
      assert.equal(denied.status, 500, denied.text);
    } finally {
      await allow('denied');
    }
    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.equal(request.body.status, 'pending');
    assert.equal(await count('privacy_request_log WHERE privacy_request_id = $1', [id]), logBefore);
  });

  it('a public submission whose code cannot be written leaves no request behind', async () => {
    const requestsBefore = await count('privacy_requests');
    await refuse('verification_code');
    try {
      const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
        json: { policy_key: 'default_access_policy', identity: { email: 'atomic2@example.com' } },
      });
      assert.equal(answer.status, 500, answer.text);
    } finally {
      await allow('verification_code');
    }
    assert.equal(await count('privacy_requests'), requestsBefore);
    assert.equal(await count('identity_verifications'), 0);
  });
});
