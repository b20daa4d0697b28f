// Regression for the quadratic email check: hostile values of the shape `a@.a.a.a…@` sent through every
// door that reaches an email check (Area B identity lookup, entity creation, privacy-request intake)
// must not stall the event loop. /health is polled on its own connection while they are in flight.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { slowestHealthWhile } from './support.ts';

const HOSTILE = `a@${'.a'.repeat(32 * 1024 - 2)}@`; // just under 64 KiB, the largest value Area B takes

describe('hostile email-shaped values', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'redos');
  });
  after(() => service.stop());

  it('keep /health answering while they reach the Area B identity checks', async () => {
    const slowest = await slowestHealthWhile(service, async () => {
      const lookup = await api.call('/api/entity/get-by-identity', { json: [HOSTILE, HOSTILE, HOSTILE] });
      assert.equal(lookup.status, 200, lookup.text);
      const created = await api.call('/api/entity/create', {
        json: [{ name: 'users', attributes: [{ name: 'email', value: HOSTILE }] }],
      });
      assert.equal(created.status, 203, created.text);
    });
    // The former pattern blocked the loop for about 4.5 s per 64 KiB value.
    assert.ok(slowest < 1000, `/health took ${slowest.toFixed(0)} ms`);
  });

  it('keep /health answering while they reach privacy-request intake, which refuses them', async () => {
    const token = await service.rootToken();
    let answer: Awaited<ReturnType<TestService['call']>> | undefined;
    const slowest = await slowestHealthWhile(service, async () => {
      answer = await service.call('POST', '/v1/privacy-request', {
        token,
        json: [1, 2, 3].map(() => ({ identity: { email: HOSTILE }, policy_key: 'default_access_policy' })),
      });
    });
    assert.equal(answer?.status, 200, answer?.text);
    assert.equal(answer?.body.succeeded.length, 0);
    assert.deepEqual(
      answer?.body.failed.map((failure: { message: string }) => failure.message),
      Array(3).fill('identity.email must be an email address.'),
    );
    assert.ok(slowest < 1000, `/health took ${slowest.toFixed(0)} ms`);
  });
});
