// The whole appeal in a real Chromium: an operator denies a Colorado request in the console with a reason;
// the subject opens the appeal link from the mail (a real SMTP server) on a phone-sized page without
// script and appeals; the operator who denied cannot decide it; a second operator reverses it in the
// console, and the request runs to complete. And the console's Extend… dialog on a Californian request.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signIn,
  signInAsOperator,
  watchForPageProblems,
} from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  isKind,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { waitForStatus } from '../privacy-requests/support.ts';

const PASSWORD = 'second reviewer password';

describe('deny, appeal, reverse by a second operator, complete (Chromium)', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let denier: Page;
  let reviewer: Page;
  const problems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    mail = await startMailServer();
    const [started, launched] = await Promise.allSettled([
      startTestService(subjectSideConfig(mail.port, { requireManualApproval: true }), { worker: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    await publishDefaults(service);
    const user = await service.call('POST', '/v1/user', {
      token: await service.rootToken(),
      json: { username: 'second.reviewer', password: PASSWORD, roles: ['approver'] },
    });
    assert.equal(user.status, 201, user.text);
    denier = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    reviewer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchForPageProblems(denier, problems);
    watchForPageProblems(reviewer, problems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  const create = async (email: string, location: string) => {
    const answer = await service.call('POST', '/v1/privacy-request', {
      token: await service.rootToken(),
      json: [{ policy_key: 'default_access_policy', identity: { email }, location }],
    });
    assert.deepEqual(answer.body.failed, []);
    return answer.body.succeeded[0].id as string;
  };

  test('the whole appeal: denied in the console, appealed on the page, reversed by another operator', async () => {
    const email = 'appellant@example.com';
    const id = await create(email, 'US-CO');

    await signIn(denier, service);
    await denier.goto(`${service.url}/console/requests/${id}`);
    await denier.getByText('US-CO').waitFor();
    await denier.getByRole('button', { name: `Deny ${id}` }).click();
    await denier.getByLabel('Reason').fill('We could not match this address to an account.');
    await denier.getByRole('button', { name: 'Deny', exact: true }).click();
    await denier.locator('.appeal-facts').getByText('open').waitFor();

    const denial = await mail.waitFor(isKind('your request was declined', email));
    assert.match(denial.text, /We could not match this address to an account\./);
    assert.match(denial.text, /the Colorado Attorney General/);
    const link = /(http:\/\/[^\s"<]+\/privacy-center\/appeal\/[A-Za-z0-9_-]{43})/.exec(denial.text)?.[1];
    assert.ok(link, 'the denial mail carries the appeal link');

    const phone = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })
    ).newPage();
    const opened = await phone.goto(link);
    assert.equal(opened?.status(), 200);
    assert.match(opened?.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    assert.equal(await phone.locator('script').count(), 0, 'no script on the appeal page');
    assert.deepEqual(await accessibilityViolations(phone), [], 'axe-core on the appeal page');
    await phone.getByLabel('Why should we reconsider?').fill('My account number is 4471 on every invoice.');
    await phone.getByRole('button', { name: 'Send my appeal' }).click();
    await phone.getByRole('heading', { name: 'We received your appeal' }).waitFor();
    assert.deepEqual(await accessibilityViolations(phone), [], 'axe-core on the confirmation');
    await screenshot(phone, 'appeal-received');
    const again = await phone.goto(link);
    assert.equal(again?.status(), 404, 'the link is single use');

    await denier.reload();
    await denier.getByRole('button', { name: 'Reverse on appeal…' }).click();
    await denier.getByLabel('Reason').fill('I will decide my own denial');
    await denier.getByRole('button', { name: 'Reverse', exact: true }).click();
    await denier.getByText('The operator who denied this request cannot decide its appeal').waitFor();
    assert.equal(
      (await service.call('GET', `/v1/privacy-request/${id}`, { token: await service.rootToken() })).body
        .status,
      'denied',
    );

    await signInAsOperator(reviewer, service, 'second.reviewer', PASSWORD);
    await reviewer.goto(`${service.url}/console/requests`);
    const row = reviewer.locator(`tr[data-request-id="${id}"]`);
    assert.match(
      (await row.locator('.appeal-deadline').textContent()) ?? '',
      /appeal: 4[45] days left/,
      'the deadline view shows the appeal with its own due date (Colorado: 45 days)',
    );
    await reviewer.goto(`${service.url}/console/requests/${id}`);
    await reviewer.getByText('My account number is 4471 on every invoice.').waitFor();
    await reviewer.getByRole('button', { name: 'Reverse on appeal…' }).click();
    await reviewer.getByLabel('Reason').fill('The invoice shows the account.');
    await reviewer.getByRole('button', { name: 'Reverse', exact: true }).click();
    await reviewer.locator('.appeal-facts').getByText('reversed').waitFor();
    await reviewer.locator('.facts').getByText('complete', { exact: true }).waitFor({ timeout: 30_000 });
    await screenshot(reviewer, 'appeal-reversed');
    const done = await waitForStatus(service, id, 'complete');
    assert.equal(done.appeal.decided_by, 'second.reviewer');
    await mail.waitFor(isKind('your request is complete', email));
    assert.deepEqual(problems, []);
  });

  test('extends a request with a reason from the console dialog', async () => {
    const email = 'patient@example.com';
    const id = await create(email, 'US-CA');
    await denier.goto(`${service.url}/console/requests/${id}`);
    await denier.getByRole('button', { name: 'Extend…' }).click();
    await denier.getByLabel('Reason').fill('The records sit in three archives.');
    await denier.getByRole('button', { name: 'Extend', exact: true }).click();
    await denier.getByText(/: The records sit in three archives\./).waitFor();
    assert.equal(await denier.getByRole('button', { name: 'Extend…' }).count(), 0, 'once only');
    const notice = await mail.waitFor(isKind('we need more time for your request', email));
    assert.match(notice.text, /The records sit in three archives\./);
    assert.deepEqual(problems, []);
  });

  test('the Records page shows the year’s figures per CCPA category as a chart and a table', async () => {
    await denier.goto(`${service.url}/console/records`);
    await denier.getByRole('img', { name: /Requests received, complied with and denied/ }).waitFor();
    const know = denier.locator('.records-table tr', {
      has: denier.getByRole('rowheader', { name: 'know' }),
    });
    const cells = await know.locator('td').allTextContents();
    assert.deepEqual(cells.slice(0, 3), ['2', '1', '0'], 'received, complied, denied');
    assert.deepEqual(await accessibilityViolations(denier), [], 'axe-core on the Records page');
    await screenshot(denier, 'records');
    assert.deepEqual(problems, []);
  });
});
