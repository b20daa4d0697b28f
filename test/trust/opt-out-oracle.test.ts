// No presence oracle on opt-outs (issue 34): a public opt-out answers the same whether or not the address
// already has an open request, because an opt-out's values are unproven (unverified_identity) and only
// trusted values enter duplicate screening. Real service; requests wait for an operator here, so the
// first opt-out is still open when the second arrives.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { DEFAULT_ACTIONS, publishDefaults, subjectSideConfig } from '../helpers/subject-side.ts';
import { definePolicy } from '../privacy-requests/rule-support.ts';
import { getRequest } from '../privacy-requests/support.ts';

const OPT_OUT = 'oracle_opt_out';

describe('a public opt-out tells nobody whether an address is known', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService(subjectSideConfig(undefined, { requireManualApproval: true }));
    await definePolicy(service, OPT_OUT, [{ name: 'Consent', key: 'consent', action_type: 'consent' }]);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions,
        {
          policy_key: OPT_OUT,
          title: 'Do not sell',
          description: '',
          identity_inputs: { email: 'required' },
        },
      ],
    });
  });
  after(async () => service.stop());

  const optOut = async (email: string) => {
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: OPT_OUT, identity: { email } },
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body as { id: string; status: string };
  };

  it('answers an address with an open opt-out as it answers an unknown one', async () => {
    const known = `known.${randomUUID().slice(0, 8)}@example.com`;
    const first = await optOut(known);
    assert.equal((await getRequest(service, first.id)).status, 'pending', 'the first stays open');
    const again = await optOut(known);
    const unknown = await optOut(`unknown.${randomUUID().slice(0, 8)}@example.com`);
    assert.equal(again.status, unknown.status);
    assert.notEqual(again.status, 'canceled');
    const view = await getRequest(service, again.id);
    assert.deepEqual(view.identity, {}, 'an opt-out proves nothing');
    assert.deepEqual(view.unverified_identity, { email: known });
  });
});
