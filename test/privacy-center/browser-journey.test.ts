// The whole journey in a real Chromium, for an access and for an erasure request: the operator publishes
// the default policies in the console; the subject submits on /privacy-center (a phone-sized window,
// keyboard only), types the code from the mail a real SMTP server received, and follows the status; the
// operator approves in the console; the completion mail arrives and its link downloads a ZIP whose
// data.json holds the subject's data. Every page passes axe-core and runs under a CSP without scripts.
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signIn,
  watchForPageProblems,
} from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openStores, seedSubject, type Stores, type Subject } from '../privacy-requests/rule-support.ts';
import {
  codeIn,
  downloadLinkIn,
  isKind,
  type MailServer,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';

const DOCS_SCREENSHOT = path.resolve(import.meta.dirname, '../../docs/images/privacy-center.png');

describe('the privacy center journey in Chromium', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let operator: Page;
  let phone: BrowserContext;
  let stores: Stores;
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
    stores = await openStores(service);
    operator = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchForPageProblems(operator, problems);
    phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      acceptDownloads: true,
    });
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  const assertAccessible = async (page: Page, where: string) =>
    assert.deepEqual(await accessibilityViolations(page), [], `axe-core on ${where}`);

  test('the operator publishes the default policies in the console', async () => {
    await signIn(operator, service);
    await operator
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Privacy center' })
      .click();
    await operator.getByRole('button', { name: 'Publish the default policies' }).click();
    await operator.getByLabel('Organisation name').fill('Example Ltd');
    await operator.getByRole('button', { name: 'Save the privacy center' }).click();
    await operator.getByText('Saved: 2 action(s) published.').waitFor();
    await assertAccessible(operator, 'the console privacy center page');
    const config = await service.call('GET', '/v1/privacy-center/config');
    assert.deepEqual(config.body.actions.map((action: { policy_key: string }) => action.policy_key).sort(), [
      'default_access_policy',
      'default_erasure_policy',
    ]);
  });

  /**
   * Submits on the page with the keyboard (having chosen where the subject lives, when given), verifies with
   * the mailed code; answers the request id.
   */
  async function submitAndVerify(
    page: Page,
    subject: Subject,
    actionTitle: string,
    livesIn?: { country: string; usState: string },
  ): Promise<string> {
    const answer = await page.goto(`${service.url}/privacy-center`);
    assert.match(answer?.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    assert.doesNotMatch(answer?.headers()['content-security-policy'] ?? '', /script-src/);
    assert.equal(await page.locator('script').count(), 0, 'no script on the page');
    await assertAccessible(page, 'the privacy center');
    const section = page.getByRole('region', { name: actionTitle });
    if (livesIn) {
      await section.getByLabel('Country').selectOption(livesIn.country);
      await section.getByLabel('State (in the United States)').selectOption(livesIn.usState);
    }
    await section.getByLabel('Email address').focus();
    await page.keyboard.type(subject.email);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your request' }).waitFor();
    const id = /\/privacy-center\/requests\/([^/?]+)/.exec(page.url())?.[1] as string;
    assert.ok(id?.startsWith('pri_'), page.url());
    await page.getByText('We received your request.').waitFor();
    await assertAccessible(page, 'the status page');

    await page.getByLabel('Verification code').fill('000000');
    await page.keyboard.press('Enter');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /Wrong code|code/);
    await assertAccessible(page, 'the status page with a wrong code');

    const code = codeIn(await mail.waitFor(isKind('your verification code', subject.email)));
    await page.getByLabel('Verification code').fill(code);
    await page.keyboard.press('Enter');
    await page.getByText('Your email address is verified; your request awaits review.').waitFor();
    return id;
  }

  async function approveInConsole(id: string, { erasure = false } = {}) {
    // The console keeps its session in memory only: a fresh load signs in again.
    await signIn(operator, service, `/console/requests/${id}`);
    await operator.getByRole('button', { name: `Approve ${id}` }).click();
    // An erasure is approved in the dialog that shows what it will touch (test/console/dpo-console-only.test.ts).
    if (erasure) await operator.getByRole('button', { name: 'Approve erasure' }).click();
    await operator.getByRole('button', { name: `Approve ${id}` }).waitFor({ state: 'detached' });
  }

  test('access from California: submit, verify, approve, completion mail, the ZIP in Californian time', async () => {
    const subject = await seedSubject(stores, 'ada');
    const page = await phone.newPage();
    watchForPageProblems(page, problems);
    const id = await submitAndVerify(page, subject, 'Get a copy of my data', {
      country: 'US',
      usState: 'CA',
    });
    await approveInConsole(id);
    const done = await mail.waitFor(isKind('your request is complete', subject.email));
    await page.reload();
    await page.getByText('Your request is done.').waitFor();
    await assertAccessible(page, 'the status page of a finished request');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.goto(downloadLinkIn(done)).catch(() => undefined),
    ]);
    const entries = await readZip(await readFile((await download.path()) as string));
    const data = JSON.parse((entries.get('data.json') as Buffer).toString('utf8'));
    assert.equal(data.privacy_request_id, id);
    const values = data.datastores.flatMap((store: { entities: { attributes: { value: string }[] }[] }) =>
      store.entities.flatMap((entity) => entity.attributes.map((attribute) => attribute.value)),
    );
    assert.ok(values.includes(subject.email), 'data.json holds the subject’s data');
    // Where the subject said they live decides the zone the report's moments are written in.
    assert.match(
      (entries.get('report.html') as Buffer).toString('utf8'),
      /gathered [A-Z][a-z]+ \d{1,2}, \d{4} at \d{1,2}:\d\d [AP]M (?:PST|PDT|GMT-[78])\./,
    );

    await page.goto(`${service.url}/privacy-center`);
    const file = await screenshot(page, 'privacy-center');
    if (process.env.LETHE_UPDATE_SCREENSHOTS) {
      await mkdir(path.dirname(DOCS_SCREENSHOT), { recursive: true });
      await copyFile(file, DOCS_SCREENSHOT);
    }
    await page.close();
  });

  test('erasure: submit, verify, approve, the completion mail confirms what was erased', async () => {
    const subject = await seedSubject(stores, 'grace');
    const page = await phone.newPage();
    watchForPageProblems(page, problems);
    const id = await submitAndVerify(page, subject, 'Erase my data');
    await approveInConsole(id, { erasure: true });
    const done = await mail.waitFor(isKind('your request is complete', subject.email));
    assert.match(done.text, /crm: 3 records/);
    assert.match(done.text, /shop: 2 records/);
    await page.reload();
    await page.getByText('Your request is done.').waitFor();
    await page.close();
  });

  test('the console shows the outbox, marks unverified identities and cancels a request', async () => {
    await operator
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Outbox' })
      .click();
    await operator
      .getByRole('heading', { name: /Completed: Example Ltd: your request is complete/ })
      .first()
      .waitFor();
    await assertAccessible(operator, 'the outbox');

    const pending = await service.call('POST', '/v1/privacy-center/privacy-request', {
      json: { policy_key: 'default_access_policy', identity: { email: 'changed.mind@example.com' } },
    });
    const id = pending.body.id as string;
    await signIn(operator, service, `/console/requests/${id}`);
    // Before its code, the email given on the page is not trusted: listed apart, marked unverified.
    const unverified = operator.locator('dd.unverified-identity');
    await unverified.waitFor();
    assert.match((await unverified.textContent()) ?? '', /^unverified c\*\*\*@example\.com /);
    await assertAccessible(operator, 'a request with an unverified identity');
    await operator.getByRole('button', { name: `Cancel ${id}` }).click();
    await operator.getByLabel('Reason').fill('asked us to stop');
    await operator.getByRole('button', { name: 'Cancel the request' }).click();
    await operator.getByRole('button', { name: `Cancel ${id}` }).waitFor({ state: 'detached' });
    await operator.locator('dd', { hasText: /: asked us to stop$/ }).waitFor();
    await operator
      .getByRole('list', { name: 'Timeline' })
      .getByText('canceled by root-test-client: asked us to stop')
      .waitFor();
    const request = await service.call('GET', `/v1/privacy-request/${id}`, {
      token: await service.rootToken(),
    });
    assert.equal(request.body.status, 'canceled');
    assert.equal(request.body.cancel_reason, 'asked us to stop');
    assert.deepEqual(problems, []);
  });
});
