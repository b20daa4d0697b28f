import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADVANCE_QUEUE } from '../../src/privacy-requests/jobs.ts';
import { startPrivacyRequestWorker, sweep } from '../../src/privacy-requests/engine/worker.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  getRequest,
  logOf,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

const DELAY_TIMEOUT_SECONDS = 2;
const IDENTITY_TTL_SECONDS = 3600;

describe('paused request expiry and identity purge', () => {
  let service: TestService;
  let receiver: Receiver;
  let halting = true;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(
      {
        ...engineConfig,
        privacyRequestDelayTimeoutSeconds: DELAY_TIMEOUT_SECONDS,
        defaultTtlSeconds: IDENTITY_TTL_SECONDS,
      },
      { worker: true },
    );
    receiver.on('/gate', () => ({ body: { halt: halting } }));
    await policyWithWebhooks(
      service,
      receiver,
      'gated',
      [{ key: 'gate', direction: 'two_way' }],
      [{ key: 'done', direction: 'one_way' }],
    );
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('moves a request paused too long to error by the scheduled sweep; retry asks the pausing webhook again', async () => {
    const created = await submit(service, { policy_key: 'gated', identity: { email: 'late@example.com' } });
    const purgeSoon = await submit(service, { policy_key: 'gated', identity: { email: 'gone@example.com' } });
    await waitForStatus(service, created.id, 'paused');
    await waitForStatus(service, purgeSoon.id, 'paused');
    const token = String(
      receiver.callsTo('/gate').find((call) => call.body.privacy_request_id === created.id)?.headers[
        'reply-to-token'
      ],
    );

    // Nobody reads the request meanwhile: the sweep acts on its own.
    await new Promise((resolve) => setTimeout(resolve, (DELAY_TIMEOUT_SECONDS + 2) * 1000));
    const { rows } = await service.services.db.query<{ status: string; error_reason: string }>(
      'SELECT status, error_reason FROM privacy_requests WHERE id = $1',
      [created.id],
    );
    assert.deepEqual(rows[0], { status: 'error', error_reason: 'paused request expired; resubmit it' });
    const log = await logOf(service, created.id);
    const expiry = log.at(-1);
    assert.equal(`${expiry.from_status}>${expiry.to_status}`, 'paused>error');
    assert.equal(expiry.error, 'paused request expired; resubmit it');

    const late = await service.call('POST', `/privacy-request/${created.id}/resume`, {
      json: {},
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(late.status, 401);
    assert.match(late.body.detail, /expired/);

    halting = false;
    const retried = await service.call('POST', `/v1/privacy-request/${created.id}/retry`, {
      token: await service.rootToken(),
    });
    assert.equal(retried.status, 200, retried.text);
    await waitForStatus(service, created.id, 'complete');
    const gateCalls = receiver.callsTo('/gate').filter((call) => call.body.privacy_request_id === created.id);
    assert.equal(gateCalls.length, 2, 'the pausing webhook is asked again and hands out a fresh token');
    assert.notEqual(gateCalls[1]?.headers['reply-to-token'], token);

    // The identities expire after the TTL (set at submission); instead of waiting it out, the test moves
    // the expiry to now and runs the pass the sweep timer runs.
    const { rows: lifetimes } = await service.services.db.query<{ ttl: number }>(
      'SELECT extract(epoch FROM identity_expires_at - requested_at)::float AS ttl FROM privacy_requests WHERE id = $1',
      [purgeSoon.id],
    );
    assert.ok(Math.abs((lifetimes[0]?.ttl ?? 0) - IDENTITY_TTL_SECONDS) < 5, `TTL ${lifetimes[0]?.ttl}`);
    await service.services.db.query('UPDATE privacy_requests SET identity_expires_at = now() WHERE id = $1', [
      purgeSoon.id,
    ]);
    await sweep(service.services);
    const purged = await getRequest(service, purgeSoon.id);
    assert.equal(purged.status, 'error');
    assert.deepEqual(purged.identity, {});
    const { rows: sealed } = await service.services.db.query<{ identity_sealed: unknown }>(
      'SELECT identity_sealed FROM privacy_requests WHERE id = $1',
      [purgeSoon.id],
    );
    assert.equal(sealed[0]?.identity_sealed, null);
    const refused = await service.call('POST', `/v1/privacy-request/${purgeSoon.id}/retry`, {
      token: await service.rootToken(),
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.detail, /expired and were purged; resubmit it/);
  });
});

describe('a request whose queue job was lost', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ ...engineConfig, stalledRequestSeconds: 1 }, { worker: false });
  });
  after(() => service.stop());

  it('is queued again by the sweep and completes', async () => {
    const created = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'lost@example.com' },
    });
    assert.equal(await service.services.queue.discardJobs(ADVANCE_QUEUE, created.id), 1);

    const worker = await startPrivacyRequestWorker(service.services, (error) => {
      throw error;
    });
    try {
      await waitForStatus(service, created.id, 'complete');
      const log = await logOf(service, created.id);
      assert.ok(
        log.some((entry) =>
          /no worker job was left for this request; queued it again/.test(entry.message ?? ''),
        ),
      );
    } finally {
      await worker.stop();
    }
  });
});
