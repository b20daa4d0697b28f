// `--work`: what a process's worker does. A Lethe whose worker runs requests and messages but not events
// completes a request and leaves its events pending; a `work: events` worker on the same store delivers
// them. The command line refuses a kind it does not know, naming the ones it does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startService } from '../../src/runtime/start.ts';
import { WORK_KINDS } from '../../src/runtime/work.ts';
import { createCliStore, type CliStore, SLOW } from '../cli/support.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from '../privacy-requests/support.ts';

describe('the work of a worker', () => {
  let receiver: Receiver;
  let service: TestService;

  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true, work: ['requests', 'messages'] });
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  it('leaves events to a worker that delivers them, and that worker delivers them', async () => {
    const token = await service.rootToken();
    const created = await service.call('PUT', '/v1/event-subscription/elsewhere', {
      token,
      json: { url: `${receiver.url}/events`, events: ['privacy_request.completed'], format: 'cloudevents' },
    });
    assert.equal(created.status, 201, created.text);
    const request = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'someone@work.example' },
    });
    await waitForStatus(service, request.id, 'complete');
    // The request ran, so this process's worker is up; its event delivery would have made a pass every
    // second since the event was written.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(receiver.callsTo('/events').length, 0, 'no delivery from a worker without events');
    const log = await service.call('GET', '/v1/event-subscription/elsewhere/delivery', { token });
    assert.deepEqual(
      log.body.items.map((delivery: { state: string }) => delivery.state),
      ['pending'],
    );

    const deliverer = await startService(service.config, { api: false, worker: true, work: ['events'] });
    try {
      const deadline = performance.now() + 30_000;
      while (receiver.callsTo('/events').length === 0 && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await deliverer.stop();
    }
    const calls = receiver.callsTo('/events');
    assert.equal(calls.length, 1);
    assert.equal(calls[0]?.body.subject, request.id);
  });
});

describe('lethe worker --work', () => {
  let store: CliStore;
  before(async () => {
    store = await createCliStore();
  });
  after(async () => {
    await store.remove();
  });

  it('refuses a kind of work it does not know, naming the ones it does', SLOW, async () => {
    const run = await store.run(['worker', '--work', 'events,mail']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /"mail"/);
    for (const kind of WORK_KINDS) assert.match(run.stderr, new RegExp(kind));
  });
});
