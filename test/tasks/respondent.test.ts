// Respondents outside the company, over real HTTP and a real SMTP server: an invite mails a link through
// the outbox; /respond/{token} is a page without script showing the instructions and the fields; the
// answer completes the task as the respondent's (so the request goes on); the link then works no more
// (a page saying so, nothing changed), nor once expired, nor from another site. Only the token's hash is
// stored. An invite without an address to send to is 400; a viewer's, 403; a closed task's, 409.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { logOf, submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, signIn, tasksOf } from './support.ts';

const VENDOR = 'answers@vendor.example';
const OTHER = 'someone@agency.example';

function linkIn(text: string): string {
  const match = /(http:\/\/[^\s"<]+\/respond\/[A-Za-z0-9_-]{43})/.exec(text);
  assert.ok(match, 'the mail holds a respondent link');
  return match[1] as string;
}

describe('respondent links', () => {
  let mail: MailServer;
  let service: TestService;
  let token: string;
  let viewer: string;

  before(async () => {
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port, { logLevel: 'debug' }), {
      worker: true,
      captureLogs: true,
    });
    token = await service.rootToken();
    viewer = await signIn(service, 'vera', ['viewer']);
    await publishDefaults(service);
    await putManualSystem(service, 'vendor', {
      name: 'Fulfilment vendor',
      respondent_email: VENDOR,
      instructions: 'Look up the orders <b>by email</b> and give the customer number.',
    });
    await putManualSystem(service, 'agency', {
      name: 'Ad agency',
      fields: [{ name: 'segment', label: 'Segment' }],
    });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'outside help', key: 'outside', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
  });
  after(async () => {
    await service.stop();
    await mail.close();
  });

  it('invites, answers once through the page, and the request goes on', { timeout: 120_000 }, async () => {
    const created = await submit(service, { policy_key: 'outside', identity: { email: 'gil@example.com' } });
    await waitForStatus(service, created.id, 'requires_input');
    const tasks = await tasksOf(service, created.id);
    const vendorTask = tasks.find((task) => task.system === 'vendor');
    const agencyTask = tasks.find((task) => task.system === 'agency');

    const byViewer = await service.call('POST', `/v1/task/${vendorTask.id}/invite`, { token: viewer });
    assert.equal(byViewer.status, 403);
    const nowhere = await service.call('POST', `/v1/task/${agencyTask.id}/invite`, { token, json: {} });
    assert.equal(nowhere.status, 400);
    assert.match(nowhere.body.detail, /respondent_email/);
    const badAddress = await service.call('POST', `/v1/task/${agencyTask.id}/invite`, {
      token,
      json: { respondent_email: 'not an address' },
    });
    assert.equal(badAddress.status, 422);

    const invited = await service.call('POST', `/v1/task/${vendorTask.id}/invite`, { token });
    assert.equal(invited.status, 200, invited.text);
    const expires = new Date(invited.body.expires_at).getTime();
    assert.ok(Math.abs(expires - (Date.now() + 7 * 86_400_000)) < 60_000);
    const invite = await mail.waitFor((candidate) => candidate.to.includes(VENDOR));
    assert.match(invite.text, /asks for your help with: Fulfilment vendor/);
    const link = linkIn(invite.text);
    const secret = link.split('/').at(-1) as string;
    const { rows } = await service.services.db.query<{ hash: Buffer }>(
      'SELECT token_hash AS hash FROM task_respondent_links WHERE task_id = $1',
      [vendorTask.id],
    );
    assert.deepEqual(
      rows.map((row) => row.hash),
      [createHash('sha256').update(secret).digest()],
    );
    const everything = await service.services.db.query<{ text: string }>(
      'SELECT string_agg(t::text, $1) AS text FROM task_respondent_links t',
      ['\n'],
    );
    assert.ok(!everything.rows[0]?.text.includes(secret), 'the token itself is not stored');

    const page = await fetch(link);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    const html = await page.text();
    assert.ok(!/<script/i.test(html), 'no script');
    assert.ok(html.includes('Look up the orders &lt;b&gt;by email&lt;/b&gt;'), 'instructions escaped');
    assert.match(html, /<label for="field-customer_number">Customer number<\/label>/);
    assert.ok(!html.includes('gil@example.com'), 'nothing of the subject');

    const crossSite = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams({ customer_number: 'X' }),
    });
    assert.equal(crossSite.status, 403);
    assert.equal(
      (await tasksOf(service, created.id)).find((task) => task.system === 'vendor').status,
      'open',
    );

    const answer = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ customer_number: 'V-99', notes: '', ignored: 'not a field' }),
    });
    assert.equal(answer.status, 200);
    assert.match(await answer.text(), /Your answer was received/);
    const done = (await tasksOf(service, created.id)).find((task) => task.system === 'vendor');
    assert.equal(done.status, 'done');
    assert.equal(done.done_by, 'respondent');
    assert.ok(
      (await logOf(service, created.id)).some(
        (entry) => entry.message === 'access task in Fulfilment vendor done by the respondent',
      ),
    );

    for (const method of ['GET', 'POST']) {
      const again = await fetch(link, {
        method,
        ...(method === 'POST'
          ? {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ customer_number: 'changed' }),
            }
          : {}),
      });
      assert.equal(again.status, 410);
      assert.match(await again.text(), /already used/);
    }
    const unknown = await fetch(link.replace(/.{4}$/, 'AAAA'));
    assert.equal(unknown.status, 404);

    // The other task: an address given, the link expired before use.
    const otherInvite = await service.call('POST', `/v1/task/${agencyTask.id}/invite`, {
      token,
      json: { respondent_email: OTHER },
    });
    assert.equal(otherInvite.status, 200, otherInvite.text);
    const otherLink = linkIn((await mail.waitFor((candidate) => candidate.to.includes(OTHER))).text);
    await service.services.db.query(
      `UPDATE task_respondent_links SET expires_at = now() - interval '1 second' WHERE task_id = $1`,
      [agencyTask.id],
    );
    const expired = await fetch(otherLink, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ segment: 'late' }),
    });
    assert.equal(expired.status, 410);
    assert.match(await expired.text(), /expired/);
    assert.equal(
      (await tasksOf(service, created.id)).find((task) => task.system === 'agency').status,
      'open',
    );

    const closed = await service.call('POST', `/v1/task/${agencyTask.id}/skip`, {
      token,
      json: { reason: 'no data' },
    });
    assert.equal(closed.status, 200);
    const late = await service.call('POST', `/v1/task/${agencyTask.id}/invite`, { token });
    assert.equal(late.status, 409);

    await waitForStatus(service, created.id, 'complete');
    const results = await service.call('GET', `/v1/privacy-request/${created.id}/access-results`, { token });
    assert.deepEqual(results.body.manual_systems, [
      { key: 'vendor', name: 'Fulfilment vendor', data: { customer_number: 'V-99' } },
    ]);
  });

  it('inviting again revokes the earlier links, and no token reaches the log at debug level', async () => {
    const created = await submit(service, { policy_key: 'outside', identity: { email: 'hal@example.com' } });
    await waitForStatus(service, created.id, 'requires_input');
    const vendorTask = (await tasksOf(service, created.id)).find((task) => task.system === 'vendor');
    const links: string[] = [];
    for (let round = 0; round < 2; round++) {
      const before = mail.mailsTo(VENDOR).length;
      const invited = await service.call('POST', `/v1/task/${vendorTask.id}/invite`, { token });
      assert.equal(invited.status, 200, invited.text);
      await mail.waitFor(() => mail.mailsTo(VENDOR).length > before);
      links.push(linkIn((mail.mailsTo(VENDOR).at(-1) as { text: string }).text));
    }
    const [first, second] = links as [string, string];
    const stale = await fetch(first, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ customer_number: 'STALE' }),
    });
    assert.notEqual(stale.status, 200, 'the earlier link answers nothing');
    assert.equal(
      (await tasksOf(service, created.id)).find((task) => task.system === 'vendor').status,
      'open',
    );
    const fresh = await fetch(second, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ customer_number: 'FRESH' }),
    });
    assert.equal(fresh.status, 200);
    const logs = service.logLines.join('\n');
    for (const link of links)
      assert.ok(!logs.includes(link.split('/').at(-1) as string), 'no token in the log');
    assert.ok(logs.includes('/respond/***'), 'the request log shows the path with its token masked');
  });
});
