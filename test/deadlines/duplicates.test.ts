// Duplicates and excess (LETHE_DUPLICATE_DETECTION at its default, `public`): a verified public request
// that repeats an open trusted request is canceled with duplicate_of and told so; an unverified submission
// never counts as the open one; operator-made requests are not checked; and a third completed access
// request within 12 months is flagged excessive, not refused. Mail on a real SMTP server.
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
import { loadConfig } from '../../src/config.ts';
import { engineConfig, waitForStatus } from '../privacy-requests/support.ts';

describe('duplicates and excess', () => {
  let mail: MailServer;
  let service: TestService;
  let root: string;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), {
      worker: true,
    });
    root = await service.rootToken();
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const get = async (id: string) =>
    (await service.call('GET', `/v1/privacy-request/${id}`, { token: root })).body;
  const submit = async (email: string) => {
    const answer = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email } },
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.id as string;
  };
  const verify = async (id: string, email: string) => {
    const codeMail = await mail.waitFor(
      (message) => isKind('your verification code', email)(message) && message.text.includes(id),
    );
    const answer = await service.call('POST', `/v1/privacy-request/${id}/verify`, {
      json: { code: codeIn(codeMail) },
    });
    assert.equal(answer.status, 200, answer.text);
  };
  const operatorMade = async (email: string) => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: root,
      json: [{ policy_key: 'default_access_policy', identity: { email } }],
    });
    assert.deepEqual(answer.body.failed, []);
    return answer.body.succeeded[0].id as string;
  };

  it('cancels a verified repeat of an open request, and an unverified one never cancels another', async () => {
    const email = 'twice@example.com';
    const unverified = await submit(email);
    const first = await submit(email);
    await verify(first, email);
    assert.equal((await get(first)).status, 'pending', 'an unverified submission is not the open request');
    assert.equal((await get(unverified)).status, 'identity_unverified');

    await verify(unverified, email);
    const repeat = await get(unverified);
    assert.equal(repeat.status, 'canceled');
    assert.equal(repeat.duplicate_of, first);
    assert.equal(repeat.cancel_reason_code, 'duplicate', 'the records count it as a duplicate');
    assert.equal((await get(first)).status, 'pending');
    const told = await mail.waitFor(isKind('your request was canceled', email));
    assert.ok(told.text.includes(`it repeats your open request ${first}`));
  });

  it('leaves operator-made requests unchecked under the default', async () => {
    const email = 'operator.twice@example.com';
    const first = await operatorMade(email);
    const second = await operatorMade(email);
    assert.equal((await get(first)).status, 'pending');
    const again = await get(second);
    assert.equal(again.status, 'pending');
    assert.equal(again.duplicate_of, null);

    // A public repeat of an operator-made open request is checked against it.
    const publicRepeat = await submit(email);
    await verify(publicRepeat, email);
    assert.equal((await get(publicRepeat)).duplicate_of, first);
  });

  it('flags the third completed access request of an identity within 12 months as excessive', async () => {
    const email = 'often@example.com';
    for (let round = 0; round < 2; round++) {
      const id = await operatorMade(email);
      assert.equal((await get(id)).excessive, false);
      const approved = await service.call('PATCH', '/v1/privacy-request/administrate/approve', {
        token: root,
        json: { request_ids: [id] },
      });
      assert.equal(approved.status, 200, approved.text);
      await waitForStatus(service, id, 'complete');
    }
    const third = await operatorMade(email);
    const flagged = await get(third);
    assert.equal(flagged.excessive, true);
    assert.equal(flagged.status, 'pending', 'flagged, not refused: a person decides');
    const listed = await service.call('GET', `/v1/privacy-request?request_id=${third}`, { token: root });
    assert.equal(listed.body.items[0].excessive, true);
  });
});

describe('duplicate detection set to all, and off', () => {
  let all: TestService;
  let off: TestService;
  before(async () => {
    [all, off] = await Promise.all([
      startTestService({ ...engineConfig, requireManualApproval: true, duplicateDetection: 'all' }),
      startTestService({ ...engineConfig, requireManualApproval: true, duplicateDetection: 'off' }),
    ]);
  });
  after(async () => {
    await Promise.all([all.stop(), off.stop()]);
  });

  const twice = async (service: TestService) => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: await service.rootToken(),
      json: [
        { policy_key: 'default_access_policy', identity: { email: 'Scripted@Example.com' } },
        { policy_key: 'default_access_policy', identity: { email: 'scripted@example.com' } },
        { policy_key: 'default_erasure_policy', identity: { email: 'scripted@example.com' } },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.succeeded as { id: string; status: string; duplicate_of: string | null }[];
  };

  it('checks operator-made requests too under all: the answer shows the repeat canceled', async () => {
    const [first, repeat, otherPolicy] = await twice(all);
    assert.equal(first?.status, 'pending');
    assert.equal(repeat?.status, 'canceled');
    assert.equal(repeat?.duplicate_of, first?.id, 'emails compared case-insensitively');
    assert.equal(otherPolicy?.status, 'pending', 'another policy is another request');
  });

  it('checks nothing when off', async () => {
    const answers = await twice(off);
    assert.deepEqual(
      answers.map((request) => [request.status, request.duplicate_of]),
      [
        ['pending', null],
        ['pending', null],
        ['pending', null],
      ],
    );
  });

  it('refuses an unknown LETHE_DUPLICATE_DETECTION naming it', () => {
    assert.throws(
      () => loadConfig({ LETHE_DUPLICATE_DETECTION: 'some' }),
      /LETHE_DUPLICATE_DETECTION must be one of public, all, off/,
    );
    assert.equal(loadConfig({}).duplicateDetection, 'public');
    assert.equal(loadConfig({}).requestRetentionDays, 730);
  });
});
