// Guessing codes and bombing inboxes (issue 22): 10 wrong codes over a request's life cancel it; at most
// 3 resends; per recipient at most 5 code mails an hour and 3 requests awaiting verification (a 4th
// submission stores and sends nothing); cross-site form posts are refused with 403 and send nothing.
// Real app, real SMTP receiver; the outbox table is where "nothing sent" is read.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { getRequest } from '../privacy-requests/support.ts';
import {
  codeIn,
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

describe('guessing codes and bombing inboxes', () => {
  let mail: MailServer;
  let service: TestService;
  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    await publishDefaults(service);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  const address = (label: string) => `${label}.${randomUUID().slice(0, 8)}@example.com`;
  const submit = (email: string, headers?: Record<string, string>) =>
    service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email } },
      headers,
    });
  const verify = (id: string, code: string, headers?: Record<string, string>) =>
    service.call('POST', `/v1/privacy-request/${id}/verify`, { json: { code }, headers });
  const resend = (id: string) => service.call('POST', `/v1/privacy-request/${id}/verify/resend`);
  /** Lets the minute between two codes pass. */
  const aMinuteLater = (id: string) =>
    service.services.db.query(
      `UPDATE identity_verifications SET sent_at = now() - interval '61 seconds' WHERE privacy_request_id = $1`,
      [id],
    );
  const outboxSize = async () =>
    (await service.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox_messages')).rows[0]
      ?.n;
  const requestCount = async () =>
    (await service.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM privacy_requests'))
      .rows[0]?.n;
  const codesTo = async (email: string, count: number) => {
    const deadline = Date.now() + 30_000;
    while (mail.mails.filter(isKind('your verification code', email)).length < count) {
      assert.ok(Date.now() < deadline, `${count} codes should reach ${email}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return mail.mails.filter(isKind('your verification code', email)).map(codeIn);
  };
  const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

  it('10 wrong codes over a request’s life cancel it with "too many wrong codes"', async () => {
    const email = address('guess');
    const submitted = await submit(email);
    assert.equal(submitted.status, 200, submitted.text);
    const id = submitted.body.id as string;
    const [first] = await codesTo(email, 1);
    for (let attempt = 1; attempt <= 5; attempt += 1)
      assert.equal((await verify(id, wrongFor(first as string))).status, 403);
    await aMinuteLater(id);
    assert.equal((await resend(id)).status, 200);
    const second = (await codesTo(email, 2))[1] as string;
    for (let attempt = 1; attempt <= 4; attempt += 1)
      assert.equal((await verify(id, wrongFor(second))).status, 403);
    assert.equal((await getRequest(service, id)).status, 'identity_unverified', 'nine wrong codes');
    const tenth = await verify(id, wrongFor(second));
    assert.equal(tenth.status, 403, tenth.text);
    assert.match(tenth.body.detail, /too many wrong codes/);
    const canceled = await getRequest(service, id);
    assert.equal(canceled.status, 'canceled');
    assert.equal(canceled.cancel_reason, 'too many wrong codes');
    assert.equal(canceled.cancel_reason_code, 'unverifiable', 'the records count it as unverifiable');
    const late = await verify(id, second);
    assert.equal(late.status, 400, 'the right code no longer helps');
  });

  it('at most 3 resends per request, then 429 with a clear detail and no mail', async () => {
    const email = address('resend');
    const id = (await submit(email)).body.id as string;
    for (let resent = 1; resent <= 3; resent += 1) {
      await aMinuteLater(id);
      const answer = await resend(id);
      assert.equal(answer.status, 200, answer.text);
    }
    await aMinuteLater(id);
    const outbox = await outboxSize();
    const refused = await resend(id);
    assert.equal(refused.status, 429, refused.text);
    assert.match(refused.body.detail, /At most 3 new codes/);
    assert.equal(await outboxSize(), outbox, 'no code queued');
  });

  it('per recipient: a 4th open unverified request is 429, stores nothing and sends nothing', async () => {
    const email = address('open');
    for (let index = 0; index < 3; index += 1) assert.equal((await submit(email)).status, 200);
    const requests = await requestCount();
    const outbox = await outboxSize();
    // The same address in other letters is the same recipient.
    const fourth = await submit(email.toUpperCase());
    assert.equal(fourth.status, 429, fourth.text);
    assert.match(fourth.body.detail, /already has 3 requests awaiting verification/);
    assert.equal(await requestCount(), requests, 'nothing stored');
    assert.equal(await outboxSize(), outbox, 'nothing sent');
    assert.equal((await submit(address('other'))).status, 200, 'another address is not held back');
  });

  it('per recipient: at most 5 code mails an hour, resends included', async () => {
    const email = address('hourly');
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) ids.push((await submit(email)).body.id as string);
    for (const id of ids.slice(0, 2)) {
      await aMinuteLater(id);
      assert.equal((await resend(id)).status, 200);
    }
    await aMinuteLater(ids[2] as string);
    const outbox = await outboxSize();
    const sixth = await resend(ids[2] as string);
    assert.equal(sixth.status, 429, sixth.text);
    assert.match(sixth.body.detail, /in the last hour/);
    assert.ok(Number(sixth.headers.get('retry-after')) > 0);
    assert.equal(await outboxSize(), outbox, 'no sixth code');
    await codesTo(email, 5);
    assert.equal(mail.mails.filter(isKind('your verification code', email)).length, 5);
  });

  it('cross-site posts get 403 and send nothing; same-origin and header-less calls work', async () => {
    const email = address('csrf');
    const outbox = await outboxSize();
    const requests = await requestCount();
    const crossSite: Record<string, string>[] = [
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'same-origin', origin: 'https://attacker.example' },
    ];
    for (const headers of crossSite) {
      const answer = await submit(email, headers);
      assert.equal(answer.status, 403, `${JSON.stringify(headers)}: ${answer.text}`);
      assert.match(answer.body.detail, /refused/);
      const form = await fetch(`${service.url}/privacy-center/requests`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ policy_key: 'default_access_policy', email }).toString(),
        redirect: 'manual',
      });
      assert.equal(form.status, 403, JSON.stringify(headers));
    }
    assert.equal(await outboxSize(), outbox, 'no mail queued');
    assert.equal(await requestCount(), requests, 'no request stored');
    assert.equal(mail.mailsTo(email).length, 0);

    const own = await submit(email, { origin: service.url, 'sec-fetch-site': 'same-origin' });
    assert.equal(own.status, 200, own.text);
    const [code] = await codesTo(email, 1);
    const id = own.body.id as string;
    const crossVerify = await verify(id, code as string, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossVerify.status, 403);
    assert.equal((await getRequest(service, id)).status, 'identity_unverified');
    const crossResend = await service.call('POST', `/v1/privacy-request/${id}/verify/resend`, {
      headers: { origin: 'https://attacker.example' },
    });
    assert.equal(crossResend.status, 403);
    assert.equal((await verify(id, code as string)).status, 200, 'no header: curl, a server');
  });
});
