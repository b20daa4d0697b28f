// Regression for the quadratic email check: hostile values of the shape `a@.a.a.a…@` sent through every
// door that reaches an email check (Area B identity lookup, entity creation, privacy-request intake)
// must not stall the event loop: the CPU the service spends on them is bounded (support.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { cpuMillisecondsWhile, HOSTILE_CPU_BOUND_MS } from './support.ts';

const HOSTILE = `a@${'.a'.repeat(32 * 1024 - 2)}@`; // just under 64 KiB, the largest value Area B takes

describe('hostile email-shaped values', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'redos');
  });
  after(() => service.stop());

  it('cost little CPU when they reach the Area B identity checks', async () => {
    const cpu = await cpuMillisecondsWhile(async () => {
      const lookup = await api.call('/api/entity/get-by-identity', { json: [HOSTILE, HOSTILE, HOSTILE] });
      assert.equal(lookup.status, 200, lookup.text);
      const created = await api.call('/api/entity/create', {
        json: [{ name: 'users', attributes: [{ name: 'email', value: HOSTILE }] }],
      });
      assert.equal(created.status, 203, created.text);
    });
    // The former pattern blocked the loop for about 4.5 s per 64 KiB value.
    assert.ok(cpu < HOSTILE_CPU_BOUND_MS, `the hostile calls took ${cpu.toFixed(0)} ms of CPU`);
  });

  it('cost little CPU when they reach privacy-request intake, which refuses them', async () => {
    const token = await service.rootToken();
    let answer: Awaited<ReturnType<TestService['call']>> | undefined;
    const cpu = await cpuMillisecondsWhile(async () => {
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
    assert.ok(cpu < HOSTILE_CPU_BOUND_MS, `the hostile calls took ${cpu.toFixed(0)} ms of CPU`);
  });
});
