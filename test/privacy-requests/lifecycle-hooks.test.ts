// The lifecycle hooks (src/privacy-requests/lifecycle.ts) as a feature sees them: a status-change hook
// registered like the features' (here by the test) joins every statement that moves a request, so it
// hears of each transition the request's log records, in the same order, however the move is made
// (received, approved by an operator, started by the worker, completed, canceled); and what it writes
// commits with the move, never without it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerLifecycleHooks } from '../../src/privacy-requests/lifecycle.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, logOf, submit, waitForStatus } from './support.ts';

describe('a status-change hook', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    registerLifecycleHooks('probe', {
      onStatusChange:
        ({ from, to }) =>
        (changed, param) => [
          `INSERT INTO hook_probe (privacy_request_id, from_status, to_status)
           SELECT id, ${param(from)}::text, ${param(to)}::text FROM ${changed}`,
        ],
    });
    service = await startTestService({ ...engineConfig, requireManualApproval: true }, { worker: true });
    await service.services.db.query(
      `CREATE TABLE hook_probe (seq bigserial PRIMARY KEY, privacy_request_id text NOT NULL,
                                from_status text, to_status text NOT NULL)`,
    );
    token = await service.rootToken();
  });
  after(async () => {
    await service.stop();
  });

  /** What the probe heard of `id`, and the transitions its log records, each as "from -> to". */
  const heardAndLogged = async (id: string) => {
    const { rows } = await service.services.db.query<{ from_status: string | null; to_status: string }>(
      'SELECT from_status, to_status FROM hook_probe WHERE privacy_request_id = $1 ORDER BY seq',
      [id],
    );
    const logged = (await logOf(service, id)).filter((entry) => entry.kind === 'transition');
    return {
      heard: rows.map((row) => `${row.from_status} -> ${row.to_status}`),
      logged: logged.map(
        (entry: { from_status: string | null; to_status: string }) =>
          `${entry.from_status} -> ${entry.to_status}`,
      ),
    };
  };

  it('hears every transition of a request run to completion, as its log records them', async () => {
    const request = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'heard.all@example.com' },
    });
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [request.id] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, request.id, 'complete');
    const { heard, logged } = await heardAndLogged(request.id);
    assert.deepEqual(heard, [
      'null -> pending',
      'pending -> approved',
      'approved -> in_processing',
      'in_processing -> complete',
    ]);
    assert.deepEqual(heard, logged);
  });

  it('hears a cancel, and nothing of a move that did not happen', async () => {
    const request = await submit(service, {
      policy_key: 'default_access_policy',
      identity: { email: 'heard.cancel@example.com' },
    });
    const canceled = await service.call('POST', `/v1/privacy-request/${request.id}/cancel`, {
      token,
      json: { reason: 'asked twice', reason_code: 'duplicate' },
    });
    assert.equal(canceled.status, 200, canceled.text);
    const again = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [request.id] },
    });
    assert.equal(again.status, 400, 'a canceled request cannot be approved');
    const { heard, logged } = await heardAndLogged(request.id);
    assert.deepEqual(heard, ['null -> pending', 'pending -> canceled']);
    assert.deepEqual(heard, logged);
  });
});
