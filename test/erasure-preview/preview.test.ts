// GET /v1/privacy-request/{id}/erasure-preview on a real service: what each erasure rule would change per
// datastore, from the request's proven identities (an email held in a non-identity attribute is no match),
// with a forget rule counting what its entities hold and a targeted rule only its targets; nothing changes;
// the approver's scope is needed; an unknown request is 404 and a request whose identities were purged 409.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { scopedToken } from '../connections/support.ts';
import { submit } from '../privacy-requests/support.ts';

describe('the erasure preview', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService({ requireManualApproval: true });
    token = await service.rootToken();
  });
  after(() => service?.stop());

  const preview = (id: string, as = token) =>
    service.call('GET', `/v1/privacy-request/${id}/erasure-preview`, { token: as });

  it('counts per rule what approving would change, and changes nothing', async () => {
    const store = await apiClient(service, 'crm');
    const created = await store.call('/api/entity/create', {
      json: [
        {
          name: 'users',
          attributes: [
            { name: 'email', value: 'ivy@example.com' },
            { name: 'city', value: 'Lyon' },
          ],
        },
        { name: 'notes', attributes: [{ name: 'text', value: 'ivy@example.com called' }] },
        { name: 'users', attributes: [{ name: 'email', value: 'other@example.com' }] },
      ],
    });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'Two erasures', key: 'two_erasures', drp_action: 'erasure' }],
    });
    assert.deepEqual(policy.body.failed, []);
    const rules = await service.call('PATCH', '/v1/dsr/policy/two_erasures/rule', {
      token,
      json: [
        { name: 'City only', key: 'city_only', action_type: 'erasure', targets: ['users.city'] },
        { name: 'Forget', key: 'forget', action_type: 'erasure', masking_strategy: { strategy: 'forget' } },
      ],
    });
    assert.deepEqual(rules.body.failed, []);
    const request = await submit(service, {
      policy_key: 'two_erasures',
      identity: { email: 'ivy@example.com' },
    });
    const ivy = (created.body as { id: string }[])[0]?.id as string;
    const sar = () => service.call('GET', `/v1/datastore/crm/entity/${ivy}`, { token });
    const before = await sar();
    assert.equal(before.status, 200, before.text);
    assert.match(before.text, /Lyon/);

    const answer = await preview(request.id);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.erasure_rules, 2);
    assert.deepEqual(answer.body.datastores, [
      {
        datastore: 'crm',
        matched_entities: 1,
        rules: [
          {
            rule_key: 'city_only',
            strategy: 'nullify',
            effect: 'rewrite',
            entities: 1,
            attributes: 1,
            files: 0,
          },
          { rule_key: 'forget', strategy: 'forget', effect: 'forget', entities: 1, attributes: 2, files: 0 },
        ],
      },
    ]);
    assert.doesNotMatch(answer.text, /ivy@example|Lyon/, 'counts and names only');
    assert.equal((await sar()).text, before.text, 'the preview changed nothing');
    assert.equal(
      (await service.call('GET', `/v1/privacy-request/${request.id}`, { token })).body.status,
      'pending',
    );
  });

  it('needs privacy-request:review; 404 for an unknown request, 409 once the identities are purged', async () => {
    const reader = await scopedToken(service, ['privacy-request:read']);
    const request = await submit(service, {
      policy_key: 'default_erasure_policy',
      identity: { email: 'gone@example.com' },
    });
    assert.equal((await preview(request.id, reader)).status, 403);
    const unknown = await preview('pri_no_such_request');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /pri_no_such_request/);
    await service.services.db.query('UPDATE privacy_requests SET identity_sealed = NULL WHERE id = $1', [
      request.id,
    ]);
    const purged = await preview(request.id);
    assert.equal(purged.status, 409);
    assert.match(purged.body.detail, /purged/);
  });
});
