// The cost of a new action type, shown on one that only this test registers (docs/rule-execution.md,
// "Adding an action type"): one module (below) and its registration, and nothing else of the service
// changes. End to end: the registry lists it, a policy takes a rule of it (with the rule shape it
// declares), a request of that policy waits for a person because the type says so, runs its part of the
// run once approved, completes without a download, and the records count it under its own name.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineAction, registerActionType } from '../../src/actions/registry.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { engineConfig, logOf, submit, waitForStatus } from '../privacy-requests/support.ts';

/** GDPR art. 20, as a stand-in: its run reports what it was given to go over. */
const portabilityAction = defineAction({
  name: 'portability',
  description: 'Reports how many identities and datastores a portable copy would cover (test only).',
  rank: 35,
  category: 'know',
  rule: { storageDestination: false, maskingStrategy: false, targets: false },
  needsPerson: () => true,
  yieldsDownload: false,
  run: async (_services, context, rules) => ({
    rule_keys: rules.map((rule) => rule.key),
    identities: context.identities.length,
    datastores: context.datastores.length,
  }),
  summary: { key: 'portability' },
});

describe('an action type registered by a test', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    registerActionType(portabilityAction);
    service = await startTestService(engineConfig, { worker: true });
    token = await service.rootToken();
  });
  after(async () => {
    await service.stop();
  });

  it('is listed by the registry, with what its rules take and its requests do', async () => {
    const answer = await service.call('GET', '/v1/action-type', { token });
    assert.equal(answer.status, 200, answer.text);
    const listed = (answer.body as { name: string }[]).find((type) => type.name === 'portability');
    assert.deepEqual(listed, {
      name: 'portability',
      description: portabilityAction.description,
      rank: 35,
      records_category: 'know',
      rule: { storage_destination: false, masking_strategy: false, targets: false },
      request_field: null,
      needs_person: { public: true, operator: true },
      yields_download: false,
    });
  });

  it('runs a request of a policy with its rule, after a person approves it, and counts it in the records', async () => {
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'Portability', key: 'portability_policy' }],
    });
    assert.equal(policy.status, 200, policy.text);
    const refused = await service.call('PATCH', '/v1/dsr/policy/portability_policy/rule', {
      token,
      json: [{ name: 'Copy', key: 'copy', action_type: 'portability', targets: ['users.*'] }],
    });
    assert.deepEqual(
      refused.body.failed.map((failure: { message: string }) => failure.message),
      ['targets do not apply to portability rules.'],
    );
    const rule = await service.call('PATCH', '/v1/dsr/policy/portability_policy/rule', {
      token,
      json: [{ name: 'Copy', key: 'copy', action_type: 'portability' }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);

    const request = await submit(service, {
      policy_key: 'portability_policy',
      identity: { email: 'portable@example.com' },
    });
    assert.equal(request.status, 'pending', 'its type needs a person');
    assert.equal(request.policy.rules[0].action_type, 'portability');
    const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
      token,
      json: { request_ids: [request.id] },
    });
    assert.equal(approved.status, 200, approved.text);
    await waitForStatus(service, request.id, 'complete');

    const { rows } = await service.services.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM datastores',
    );
    const rules = (await logOf(service, request.id)).find((entry) => entry.kind === 'rules');
    assert.deepEqual(rules?.details.portability, {
      rule_keys: ['copy'],
      identities: 1,
      datastores: rows[0]?.n,
    });
    const links = await service.services.db.query(
      'SELECT FROM access_package_links WHERE privacy_request_id = $1',
      [request.id],
    );
    assert.equal(links.rowCount, 0, 'no download: the type yields none');

    const metrics = await service.call(
      'GET',
      `/v1/report/metrics?year=${new Date(request.requested_at).getUTCFullYear()}`,
      {
        token,
      },
    );
    const figures = (metrics.body.by_action_type as { action_type: string; complied: number }[]).find(
      (row) => row.action_type === 'portability',
    );
    assert.equal(figures?.complied, 1);
  });
});
