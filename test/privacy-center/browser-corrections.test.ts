// A correction asked on the privacy center page in a real Chromium at 375 px: the "What should we
// correct?" items are found by their labels, a refusal comes back in the form's alert with what was typed,
// the page passes axe-core and never scrolls sideways, and the request sent waits for its code. No script.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  accessibilityViolations,
  launchBrowser,
  screenshot,
  watchForPageProblems,
} from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  DEFAULT_ACTIONS,
  type MailServer,
  publishDefaults,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { definePolicy, openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import { getRequest } from '../privacy-requests/support.ts';

const POLICY = 'rectify';
const TITLE = 'Correct my data';

describe('a correction on the privacy center page in Chromium', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
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
    await definePolicy(service, POLICY, [
      { name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.name'] },
    ]);
    await publishDefaults(service, {
      ...DEFAULT_ACTIONS,
      actions: [
        ...DEFAULT_ACTIONS.actions,
        { policy_key: POLICY, title: TITLE, description: '', identity_inputs: { email: 'required' } },
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  const assertFitsAndAccessible = async (page: Page, where: string) => {
    assert.deepEqual(await accessibilityViolations(page), [], `axe-core on ${where}`);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `${where} scrolls sideways by ${overflow}px at 375 px`);
  };

  test('refused with the message and the values, then sent and waiting for its code', async () => {
    const subject = await seedSubject(stores, 'cleo');
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, deviceScaleFactor: 2 });
    watchForPageProblems(page, problems);
    await page.goto(`${service.url}/privacy-center`);
    assert.equal(await page.locator('script').count(), 0, 'no script on the page');
    await assertFitsAndAccessible(page, 'the privacy center with a correction form');
    const section = page.getByRole('region', { name: TITLE });
    await section.getByRole('group', { name: 'What should we correct?' }).waitFor();
    await section.getByLabel('Email address').fill(subject.email);
    await section.getByLabel('Item 1: what to correct').fill('users.shoe_size');
    await section.getByLabel('Item 1: the right value').fill('9');
    await section.getByRole('button', { name: 'Send this request' }).click();

    const problem = page.getByRole('region', { name: TITLE }).getByRole('alert');
    await problem.waitFor();
    assert.match((await problem.textContent()) ?? '', /users\.shoe_size/);
    assert.equal(await section.getByLabel('Item 1: the right value').inputValue(), '9', 'kept as typed');
    await assertFitsAndAccessible(page, 'the correction form with a problem');
    await screenshot(page, 'privacy-center-correction-problem');

    await section.getByLabel('Item 1: what to correct').fill('users.name');
    await section.getByLabel('Item 1: the right value').fill('Cleo Corrected');
    await section.getByRole('button', { name: 'Send this request' }).click();
    await page.getByRole('heading', { name: 'Your request' }).waitFor();
    const id = /\/privacy-center\/requests\/([^/?]+)/.exec(page.url())?.[1] as string;
    assert.ok(id?.startsWith('pri_'), page.url());
    assert.equal((await getRequest(service, id)).status, 'identity_unverified');
    assert.deepEqual(problems, []);
  });
});
