// A webhook call's connection and reply token are read and recorded by the statement that confirms the
// step before it, and the first call's connection by the statement that starts the run (issue 29: one
// round trip fewer per call). What that must keep: a change of a connection
// made while the call before is under way applies to the next call (docs/callbacks.md: from the next
// callback on), after a rules step too; and a two_way call's reply token is committed, once, before the
// call that carries it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openReplyToken } from '../../src/privacy-requests/reply-token.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  engineConfig,
  policyWithWebhooks,
  type Receiver,
  startReceiver,
  submit,
  waitForStatus,
} from './support.ts';

describe('calls prepared by the step before', () => {
  let service: TestService;
  let receiver: Receiver;
  let root: string;
  before(async () => {
    receiver = await startReceiver();
    service = await startTestService(engineConfig, { worker: true });
    root = await service.rootToken();
    await policyWithWebhooks(
      service,
      receiver,
      'prepared',
      [
        { key: 'first', direction: 'one_way' },
        { key: 'second', direction: 'one_way' },
        { key: 'ask', direction: 'two_way' },
      ],
      [{ key: 'done', direction: 'one_way' }],
    );
  });
  after(async () => {
    await service.stop();
    await receiver.close();
  });

  const replaceAuthorization = async (connection: string, path: string, authorization: string) => {
    const answer = await service.call('PUT', `/v1/connection/${connection}`, {
      token: root,
      json: { url: `${receiver.url}${path}`, authorization },
    });
    assert.equal(answer.status, 200, answer.text);
  };

  it('calls with the connection as changed during the call before, across the rules step too', async () => {
    receiver.on('/first', async () => {
      await replaceAuthorization('prepared_second', '/second', 'Bearer changed-during-first');
      return {};
    });
    receiver.on('/ask', async () => {
      await replaceAuthorization('prepared_done', '/done', 'Bearer changed-during-ask');
      return { body: {} };
    });
    const request = await submit(service, {
      policy_key: 'prepared',
      identity: { email: 'prepared.calls@example.com' },
    });
    await waitForStatus(service, request.id, 'complete');
    const of = (path: string) =>
      receiver.callsTo(path).find((call) => call.body?.privacy_request_id === request.id);
    assert.equal(of('/first')?.headers.authorization, 'Bearer secret-of-first', 'read as the run started');
    assert.equal(of('/second')?.headers.authorization, 'Bearer changed-during-first');
    assert.equal(of('/ask')?.headers.authorization, 'Bearer secret-of-ask');
    assert.equal(of('/done')?.headers.authorization, 'Bearer changed-during-ask');
  });

  it("records the two_way call's reply token once, before the call, under the jti the token carries", async () => {
    let recorded: { jti: string; step: number; kind: string; used: boolean }[] | undefined;
    let token: string | undefined;
    receiver.on('/ask', async (call) => {
      token = String(call.headers['reply-to-token']);
      recorded = (
        await service.services.db.query<{ jti: string; step: number; kind: string; used: boolean }>(
          `SELECT jti::text AS jti, step, kind, used_at IS NOT NULL AS used
             FROM reply_tokens WHERE privacy_request_id = $1`,
          [call.body.privacy_request_id],
        )
      ).rows;
      return { body: {} };
    });
    const request = await submit(service, {
      policy_key: 'prepared',
      identity: { email: 'prepared.token@example.com' },
    });
    await waitForStatus(service, request.id, 'complete');
    assert.ok(token, 'the two_way call carried a reply token');
    const claims = await openReplyToken(service.services.keyring, token);
    assert.equal(claims?.privacy_request_id, request.id);
    assert.deepEqual(recorded, [{ jti: claims?.jti, step: 2, kind: 'resume', used: false }]);
  });
});
