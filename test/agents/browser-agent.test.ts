// An authorized agent's request in a real Chromium, on phone-sized windows: the agent submits on
// /privacy-center for the subject, types the code a real SMTP server received at the agent's address, and
// sees the request wait for the subject; the subject opens the mailed link, confirms the agent; the request
// runs to completion and the subject's completion link downloads the ZIP. Every page passes axe-core and
// runs without script.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  accessibilityViolations,
  launchBrowser,
  screenshot,
  watchForPageProblems,
} from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  codeIn,
  downloadLinkIn,
  isKind,
  type MailServer,
  publishDefaults,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import { getRequest, waitForStatus } from '../privacy-requests/support.ts';
import { confirmLinkIn } from './support.ts';

describe("an authorized agent's request in Chromium", () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let phone: BrowserContext;
  let stores: Stores;
  const problems: string[] = [];

  before(async () => {
    mail = await startMailServer();
    const [started, launched] = await Promise.allSettled([
      startTestService(subjectSideConfig(mail.port), { worker: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    stores = await openStores(service);
    await publishDefaults(service);
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

  test('submission, the agent’s code, the subject’s confirmation, completion, download', async () => {
    const subject = await seedSubject(stores, 'sofia');
    const agentEmail = `agent.${randomUUID().slice(0, 8)}@example.com`;

    // The agent, on the public page.
    const agentPage = await phone.newPage();
    watchForPageProblems(agentPage, problems);
    await agentPage.goto(`${service.url}/privacy-center`);
    assert.equal(await agentPage.locator('script').count(), 0);
    const section = agentPage.getByRole('region', { name: 'Get a copy of my data' });
    await section.getByLabel('Email address').fill(subject.email);
    await section.getByText('I am an authorized agent acting for this person').click();
    await section.getByLabel('Your name (agent)').fill('Avery Agent');
    await section.getByLabel('Your email (agent)').fill(agentEmail);
    await assertAccessible(agentPage, 'the privacy center with the agent fields open');
    await section.getByRole('button', { name: 'Send this request' }).click();
    await agentPage.getByRole('heading', { name: 'Your request' }).waitFor();
    const id = /\/privacy-center\/requests\/([^/?]+)/.exec(agentPage.url())?.[1] as string;
    assert.ok(id?.startsWith('pri_'), agentPage.url());

    const code = codeIn(await mail.waitFor(isKind('your verification code', agentEmail)));
    assert.equal(mail.mailsTo(subject.email).length, 0, 'the subject gets no code');
    await agentPage.getByLabel('Verification code').fill(code);
    await agentPage.getByRole('button', { name: 'Verify' }).click();
    await agentPage.getByRole('heading', { name: 'Waiting for the person you act for' }).waitFor();
    await assertAccessible(agentPage, 'the status page awaiting the subject');
    assert.equal((await getRequest(service, id)).status, 'identity_unverified', 'nothing runs yet');

    // The subject, from the mailed link.
    const link = confirmLinkIn(await mail.waitFor(isKind('confirm who acts for you', subject.email)));
    const subjectPage = await phone.newPage();
    watchForPageProblems(subjectPage, problems);
    const answer = await subjectPage.goto(link);
    assert.match(answer?.headers()['content-security-policy'] ?? '', /default-src 'none'/);
    await subjectPage.getByRole('heading', { name: 'Confirm your authorized agent' }).waitFor();
    await assertAccessible(subjectPage, 'the confirm-agent page');
    await screenshot(subjectPage, 'confirm-agent');
    await subjectPage.getByRole('button', { name: 'Yes, Avery Agent acts for me' }).click();
    await subjectPage.getByRole('heading', { name: 'Agent confirmed' }).waitFor();
    await assertAccessible(subjectPage, 'the confirmed page');

    // Completion, and the subject's download.
    await waitForStatus(service, id, 'complete');
    const done = await mail.waitFor(isKind('your request is complete', subject.email));
    await agentPage.reload();
    await agentPage.getByText('Your request is done.').waitFor();
    const [download] = await Promise.all([
      subjectPage.waitForEvent('download'),
      subjectPage.goto(downloadLinkIn(done)).catch(() => undefined),
    ]);
    const entries = await readZip(await readFile((await download.path()) as string));
    const data = JSON.parse((entries.get('data.json') as Buffer).toString('utf8'));
    assert.equal(data.privacy_request_id, id);
    assert.ok(JSON.stringify(data).includes(subject.email), "data.json holds the subject's data");
    assert.ok(entries.has('report.html') && entries.has('data.csv'));
    assert.equal(
      mail.mailsTo(agentEmail).filter((message) => message.text.includes('/privacy-center/download/')).length,
      0,
      'the download link goes to the subject only',
    );
    assert.deepEqual(problems, []);
  });
});
