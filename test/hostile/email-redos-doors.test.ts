// Regression for the quadratic email check through the doors that need no key: a reply-to-token
// holder's resume body and a two_way webhook receiver's answer, both carrying a hostile derived_identity
// email of about 1 MiB (the body and response limits). The CPU spent while they are judged is bounded
// (support.ts). A used reply-to-token is refused before its body is judged, so it costs the service nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { cpuMillisecondsWhile, HOSTILE_CPU_BOUND_MS } from './support.ts';
import {
  engineConfig,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

const HOSTILE = `a@${'.a'.repeat(512 * 1024 - 64)}@`; // just under 1 MiB

describe('hostile derived_identity emails', () => {
  let service: TestService;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    receiver.on('/halts', () => ({ body: { halt: true } }));
    receiver.on('/hostile', () => ({ body: { derived_identity: { email: HOSTILE } } }));
    await policyWithWebhooks(service, receiver, 'pausing', [{ key: 'halts', direction: 'two_way' }]);
    await policyWithWebhooks(service, receiver, 'enriching', [{ key: 'hostile', direction: 'two_way' }]);
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const resume = (id: string, token: string, json: unknown) =>
    service.call('POST', `/privacy-request/${id}/resume`, {
      json,
      headers: { authorization: `Bearer ${token}` },
    });

  it('from a reply-to-token holder: refused as 422 at little CPU; a used token: 401 before the body', async () => {
    const created = await submit(service, { policy_key: 'pausing', identity: { email: 'ada@example.com' } });
    await waitForStatus(service, created.id, 'paused');
    const call = receiver.callsTo('/halts').find((each) => each.body.privacy_request_id === created.id);
    const token = String(call?.headers['reply-to-token']);
    const hostileBody = { derived_identity: { email: HOSTILE } };

    let refused: Awaited<ReturnType<TestService['call']>> | undefined;
    const cpu = await cpuMillisecondsWhile(async () => {
      refused = await resume(created.id, token, hostileBody);
    });
    assert.equal(refused?.status, 422, refused?.text.slice(0, 200));
    assert.match(refused?.body.detail, /derived_identity\.email/);
    assert.ok(cpu < HOSTILE_CPU_BOUND_MS, `the hostile calls took ${cpu.toFixed(0)} ms of CPU`);

    const resumed = await resume(created.id, token, {});
    assert.equal(resumed.status, 200, resumed.text);
    const used = await resume(created.id, token, hostileBody);
    assert.equal(used.status, 401, used.text.slice(0, 200));
    assert.match(used.body.detail, /already been used/);
  });

  it('from a two_way webhook receiver: the request fails on the invalid answer at little CPU', async () => {
    let failed: { status: string } | undefined;
    const created = await submit(service, { policy_key: 'enriching', identity: { email: 'bo@example.com' } });
    const cpu = await cpuMillisecondsWhile(async () => {
      failed = await waitForStatus(service, created.id, 'error');
    });
    assert.equal(failed?.status, 'error');
    const log = await logOf(service, created.id);
    assert.ok(
      log.some((entry: { message: string }) => /answered an invalid body: .*email/.test(entry.message)),
      JSON.stringify(log).slice(0, 2000),
    );
    assert.ok(cpu < HOSTILE_CPU_BOUND_MS, `the hostile calls took ${cpu.toFixed(0)} ms of CPU`);
  });
});
