// The retention job as the worker runs it: its queue defined, a pass asked for at start, worked through
// the real queue (pg-boss on PostgreSQL), purging the identity values of a request closed longer ago than
// LETHE_REQUEST_RETENTION_DAYS while a recent one keeps them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startRetentionJob } from '../../src/reports/retention.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig } from '../privacy-requests/support.ts';

describe('the retention job', () => {
  let service: TestService;
  let root: string;
  before(async () => {
    // No worker: the test starts the retention job itself once the old request is in place.
    service = await startTestService({
      ...engineConfig,
      requireManualApproval: true,
      requestRetentionDays: 30,
    });
    root = await service.rootToken();
  });
  after(() => service.stop());

  it('purges identity values of requests closed before the retention, through the queue', async () => {
    const created = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [
        { policy_key: 'default_access_policy', identity: { email: 'old@example.com' } },
        { policy_key: 'default_access_policy', identity: { email: 'recent@example.com' } },
        { policy_key: 'default_access_policy', identity: { email: 'open@example.com' } },
      ],
    });
    const [old, recent, open] = created.body.succeeded.map((item: { id: string }) => item.id);
    const denied = await service.call('PATCH', '/v1/privacy-request/administrate/deny', {
      token: root,
      json: { request_ids: [old, recent], reason: 'not a customer' },
    });
    assert.equal(denied.body.succeeded.length, 2, denied.text);
    await service.services.db.query(
      "UPDATE privacy_requests SET finalized_at = now() - interval '31 days' WHERE id = $1",
      [old],
    );
    const errors: Error[] = [];
    const job = await startRetentionJob(service.services, (error) => errors.push(error));
    try {
      const identityOf = async (id: string) =>
        (await service.call('GET', `/v1/privacy-request/${id}`, { token: root })).body.identity;
      const deadline = Date.now() + 30_000;
      while (Object.keys(await identityOf(old)).length > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(await identityOf(old), {}, 'purged by the job');
      assert.deepEqual(await identityOf(recent), { email: 'recent@example.com' });
      assert.deepEqual(await identityOf(open), { email: 'open@example.com' });
      const record = (await service.call('GET', `/v1/privacy-request/${old}`, { token: root })).body;
      assert.equal(record.status, 'denied', 'the record stays');
      assert.deepEqual(errors, []);
    } finally {
      job.stop();
    }
  });
});
