// The console's cancel dialog, in a real Chromium against a real Lethe (issue 35: cancel cannot refuse): on a
// request an operator made, the dialog says that a refusal is a denial with a reason, requires one of the
// three reason codes (the browser will not send it without), and the code chosen is stored and shown on the
// request's page. The dialog passes axe's WCAG 2.1 A and AA rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  signIn,
  watchForPageProblems,
} from './browser.ts';

describe('the console’s cancel dialog', () => {
  let service: TestService;
  let browser: Browser;
  let token: string;
  const contexts: BrowserContext[] = [];

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([
      startTestService({ requireManualApproval: true }),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await service?.stop();
  });

  test('an operator-made request needs a reason code, and the page shows the one chosen', async () => {
    const created = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ policy_key: 'default_access_policy', identity: { email: 'withdrew@example.com' } }],
    });
    assert.deepEqual(created.body.failed, [], created.text);
    const id = created.body.succeeded[0].id as string;

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    watchForPageProblems(page, problems);
    await signIn(page, service, `/console/requests/${id}`);
    await page.getByRole('button', { name: `Cancel ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel request' });
    await dialog.waitFor();
    await dialog.getByText('To refuse a request, deny it with a reason').waitFor();
    assert.deepEqual(await accessibilityViolations(page), [], 'axe violations on the cancel dialog');

    // Without a code the browser keeps the form (the select is required): nothing is sent.
    await dialog.getByRole('button', { name: 'Cancel the request' }).click();
    assert.equal(
      await dialog.getByLabel('Why').evaluate((element) => (element as HTMLSelectElement).validity.valid),
      false,
    );
    const still = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.equal(still.body.status, 'pending', 'nothing changed');

    await dialog.getByLabel('Why').selectOption('subject_withdrew');
    await dialog.getByRole('button', { name: 'Cancel the request' }).click();
    await page.getByRole('button', { name: `Cancel ${id}` }).waitFor({ state: 'detached' });
    await page.locator('dd', { hasText: '(subject withdrew)' }).waitFor();
    const request = await service.call('GET', `/v1/privacy-request/${id}`, { token });
    assert.equal(request.body.status, 'canceled');
    assert.equal(request.body.cancel_reason_code, 'subject_withdrew');
    assert.deepEqual(problems, []);
  });
});
