// Receivers that misbehave: no answer, a reset connection, 500, invalid JSON, a 10 MB body, a body that
// never ends, a redirect. Each fault is put behind a two_way and a one_way pre-execution webhook, and all
// the requests run at once on a real worker. Proves: every request ends in a defined state within a bound
// (two_way: `error`, nothing after the failed webhook runs; one_way: tried, logged, and the request goes
// on to `complete`), and the reason is in the request's log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type Behaviour, type Receiver, startReceiver } from './support/receiver.ts';

const TIMEOUT_MS = 1500;
/** Three tries of a one_way webhook at most, each bounded by the timeout, plus backoff and scheduling. */
const BOUND_MS = 3 * TIMEOUT_MS + 10_000;

/**
 * `tries`: how often a one_way webhook is called for the fault. Network errors, no answer and 5xx are
 * retried; an answer that arrives but is refused (too large, a body that stops coming, a redirect) is not.
 */
const FAULTS: { name: string; behaviour: Behaviour; reason: RegExp; tries: number }[] = [
  {
    name: 'timeout',
    behaviour: { kind: 'no-answer' },
    reason: new RegExp(`no answer within ${TIMEOUT_MS} ms`),
    tries: 3,
  },
  { name: 'reset', behaviour: { kind: 'reset' }, reason: /network error/, tries: 3 },
  { name: 'server_error', behaviour: { kind: 'answer', status: 500 }, reason: /HTTP 500/, tries: 3 },
  { name: 'invalid_json', behaviour: { kind: 'invalid-json' }, reason: /not JSON/, tries: 1 },
  {
    name: 'ten_megabytes',
    behaviour: { kind: 'huge-body', bytes: 10 * 1024 * 1024 },
    reason: /larger than 1048576 bytes/,
    tries: 1,
  },
  {
    name: 'endless',
    behaviour: { kind: 'endless-body' },
    reason: new RegExp(`no answer within ${TIMEOUT_MS} ms`),
    tries: 1,
  },
  {
    name: 'redirect',
    behaviour: { kind: 'redirect', location: '/elsewhere' },
    reason: /redirect \(302\); redirects are not followed/,
    tries: 1,
  },
];

describe('receiver faults', () => {
  let service: TestService;
  let receiver: Receiver;
  let token: string;

  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(
      {
        allowInsecureWebhooks: true,
        webhookAllowedHosts: ['127.0.0.1'],
        webhookTimeoutMs: TIMEOUT_MS,
        webhookRetryDelayMs: 50,
        jobPollingIntervalSeconds: 0.5,
        workerConcurrency: 8,
      },
      { worker: true },
    );
    token = await service.rootToken();
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const setup = async (method: string, path: string, json: unknown) => {
    const answer = await service.call(method, path, { token, json });
    assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
    return answer.body;
  };

  async function policyWith(policy: string, faultPath: string, direction: 'one_way' | 'two_way') {
    await setup('PATCH', '/v1/dsr/policy', [{ key: policy, name: policy }]);
    const hooks = [
      { key: 'faulty', path: faultPath, direction },
      { key: 'after', path: `/after/${policy}`, direction: 'one_way' as const },
    ];
    for (const hook of hooks) {
      const connection = `${policy}_${hook.key}`;
      await setup('PATCH', '/v1/connection', [
        { key: connection, name: connection, connection_type: 'https', access: 'read' },
      ]);
      await setup('PUT', `/v1/connection/${connection}`, { url: `${receiver.url}${hook.path}` });
    }
    await setup(
      'PUT',
      `/v1/policy/${policy}/webhook/pre_execution`,
      hooks.map((hook) => ({
        connection_config_key: `${policy}_${hook.key}`,
        direction: hook.direction,
        key: hook.key,
        name: hook.key,
      })),
    );
  }

  it('ends every request in a defined state within the bound, with the reason in its log', async () => {
    const runs: {
      fault: (typeof FAULTS)[number];
      direction: 'one_way' | 'two_way';
      policy: string;
      id: string;
      at: number;
    }[] = [];
    for (const fault of FAULTS) {
      receiver.script(`/fault/${fault.name}`, () => fault.behaviour);
      for (const direction of ['two_way', 'one_way'] as const) {
        const policy = `${fault.name}_${direction}`;
        await policyWith(policy, `/fault/${fault.name}`, direction);
        runs.push({ fault, direction, policy, id: '', at: 0 });
      }
    }
    for (const run of runs) {
      const created = await setup('POST', '/v1/privacy-request', [
        { policy_key: run.policy, identity: { email: `${run.policy}@example.com` } },
      ]);
      run.id = created.succeeded[0].id;
      run.at = Date.now();
    }

    const figures: Record<string, number> = {};
    const pending = new Set(runs);
    const deadline = Date.now() + BOUND_MS + 5000;
    while (pending.size > 0 && Date.now() < deadline) {
      for (const run of [...pending]) {
        const request = await service.call('GET', `/v1/privacy-request/${run.id}`, { token });
        if (['error', 'complete'].includes(request.body.status)) {
          figures[run.policy] = Date.now() - run.at;
          pending.delete(run);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(
      [...pending].map((run) => run.policy),
      [],
      'every request ended within the bound',
    );

    for (const run of runs) {
      const request = await service.call('GET', `/v1/privacy-request/${run.id}`, { token });
      const log = (await service.call('GET', `/v1/privacy-request/${run.id}/log`, { token })).body as {
        kind: string;
        webhook_key: string | null;
        to_status: string | null;
        error: string | null;
        message: string | null;
        http_status: number | null;
        attempt: number | null;
      }[];
      const calls = log.filter((entry) => entry.kind === 'webhook' && entry.webhook_key === 'faulty');
      const afterCalls = receiver.calls.filter((call) => call.path === `/after/${run.policy}`);
      assert.ok(
        (figures[run.policy] ?? Infinity) < BOUND_MS,
        `${run.policy} ended after ${figures[run.policy]} ms`,
      );
      if (run.direction === 'two_way') {
        assert.equal(request.body.status, 'error', `${run.policy}: ${JSON.stringify(log)}`);
        assert.match(
          log.find((entry) => entry.to_status === 'error')?.error ?? '',
          run.fault.reason,
          run.policy,
        );
        assert.match(calls[0]?.error ?? '', run.fault.reason, run.policy);
        assert.equal(afterCalls.length, 0, `${run.policy}: nothing runs after a failed two_way webhook`);
      } else {
        assert.equal(request.body.status, 'complete', `${run.policy}: ${JSON.stringify(log)}`);
        assert.equal(calls.length, run.fault.tries, `${run.policy}: tries`);
        assert.equal(afterCalls.length, 1, `${run.policy}: the request went on`);
        // A one_way answer's body is not judged, so invalid JSON there is a success; every other fault is
        // a failure logged with its reason on each try.
        if (run.fault.name === 'invalid_json') assert.equal(calls[0]?.error, null, run.policy);
        else for (const entry of calls) assert.match(entry.error ?? '', run.fault.reason, run.policy);
      }
    }
    assert.equal(
      receiver.calls.filter((call) => call.path === '/elsewhere').length,
      0,
      'redirects are not followed',
    );
    process.stdout.write(`# receiver fault figures (ms to a final state) ${JSON.stringify(figures)}\n`);
  });
});
