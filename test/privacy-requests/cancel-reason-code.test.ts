// Cancel cannot refuse (issue 35, DECISIONS "The law, complete"): once a request is verified, or when an
// operator made it, a cancel needs `reason_code` subject_withdrew, duplicate or unverifiable. Without one,
// or with another code, the answer is 422 naming the three and nothing changes; each code is accepted,
// stored and shown in the request's view and log. Before verification a cancel needs no code. Over real
// HTTP on real PostgreSQL, with a real mail server for the public side's code.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { logOf, submit } from './support.ts';

describe('cancel after verification takes a reason code', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    token = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const cancel = (id: string, json: unknown) =>
    service.call('POST', `/v1/privacy-request/${id}/cancel`, { token, json });

  /** What a cancel could change: the request's row, its log (but the mail worker's delivery notes) and its mails. */
  const stateOf = async (id: string) => {
    const { rows } = await service.services.db.query(
      `SELECT status, canceled_at, cancel_reason, cancel_reason_code, finalized_at,
              (SELECT count(*)::int FROM privacy_request_log WHERE privacy_request_id = $1
                  AND (details IS NULL OR NOT details ? 'outbox_message_id')) AS log,
              (SELECT count(*)::int FROM outbox_messages
                WHERE privacy_request_id = $1 AND kind = 'canceled') AS canceled_mails
         FROM privacy_requests WHERE id = $1`,
      [id],
    );
    return rows[0];
  };

  const operatorMade = async (email: string) =>
    (await submit(service, { policy_key: 'default_access_policy', identity: { email } })).id as string;

  it('an operator-made request: no code, or an unknown one, is 422 naming the codes; nothing changes', async () => {
    const id = await operatorMade('no.code@example.com');
    const before = await stateOf(id);
    for (const [label, body] of [
      ['no code', { reason: 'not a customer' }],
      ['empty body', {}],
      ['unknown code', { reason_code: 'not_a_customer' }],
      ['a refusal dressed as a cancel', { reason_code: 'refused' }],
    ] as const) {
      const answer = await cancel(id, body);
      assert.equal(answer.status, 422, `${label}: ${answer.text}`);
      const said = String(answer.body.detail ?? answer.body.message);
      for (const code of ['subject_withdrew', 'duplicate', 'unverifiable'])
        assert.ok(said.includes(code), `${label} names ${code}: ${said}`);
      assert.match(said, /deny/, `${label} says that a refusal is a denial`);
      assert.deepEqual(await stateOf(id), before, `${label}: nothing changes`);
    }
  });

  for (const code of ['subject_withdrew', 'duplicate', 'unverifiable'] as const) {
    it(`accepts ${code}, stores it and shows it in the view and the log`, async () => {
      const id = await operatorMade(`${code}@example.com`);
      const answer = await cancel(id, { reason_code: code, reason: 'as the subject asked' });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.body.status, 'canceled');
      assert.equal(answer.body.cancel_reason_code, code);
      assert.equal(answer.body.cancel_reason, 'as the subject asked');
      const seen = await service.call('GET', `/v1/privacy-request/${id}`, { token });
      assert.equal(seen.body.cancel_reason_code, code);
      assert.equal((await stateOf(id))?.cancel_reason_code, code);
      const log = await logOf(service, id);
      assert.ok(
        log.some((entry) => entry.message.includes(`(${code})`)),
        JSON.stringify(log.map((entry) => entry.message)),
      );
    });
  }

  it('a public request verified by its code needs a code too; before verification it needs none', async () => {
    const submitOnline = async (email: string) => {
      const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
        json: { policy_key: 'default_access_policy', identity: { email } },
      });
      assert.equal(answer.status, 200, answer.text);
      const code = codeIn(await mail.waitFor(isKind('your verification code', email)));
      return { id: answer.body.id as string, code };
    };

    const verified = await submitOnline('verified.public@example.com');
    const check = await service.call('POST', `/v1/privacy-request/${verified.id}/verify`, {
      json: { code: verified.code },
    });
    assert.equal(check.status, 200, check.text);
    const before = await stateOf(verified.id);
    assert.equal(before?.status, 'pending');
    const refused = await cancel(verified.id, { reason: 'we do not hold their data' });
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(await stateOf(verified.id), before, 'nothing changes');

    const unverified = await submitOnline('unverified.public@example.com');
    const canceled = await cancel(unverified.id, {});
    assert.equal(canceled.status, 200, canceled.text);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(canceled.body.cancel_reason_code, null);
  });
});
