// The datastores page edits a datastore's identity attributes in a real Chromium against a real Lethe:
// the default is shown, a declaration saved from the form is what the API then answers, a bad name shows
// the API's 422 detail and changes nothing, and "Use the default" takes it back. The page passes axe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  signIn,
  watchForPageProblems,
} from './browser.ts';

describe('identity attributes in the console', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let token: string;
  const pageProblems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([startTestService(), launchBrowser()]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
    for (const name of ['billing', 'crm']) {
      const created = await service.call('POST', '/v1/datastore', { token, json: { name } });
      assert.equal(created.status, 201, created.text);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchForPageProblems(page, pageProblems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  const stored = async () =>
    (await service.call('GET', '/v1/datastore/crm/identities', { token })).body as {
      declared: boolean;
      identities: Record<string, string[]>;
    };

  test('shows the default, saves a declaration, shows a refusal, and goes back to the default', async () => {
    await signIn(page, service);
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Datastores & keys' })
      .click();
    await page.getByRole('heading', { name: 'Identity attributes' }).waitFor();
    await page.getByLabel('Datastore', { exact: true }).selectOption('crm');
    const form = page.getByRole('form', { name: 'Identity attributes of crm' });
    await form.getByTestId('identity-state').getByText('Default').waitFor();

    await form.getByLabel('Attributes of kind 1', { exact: true }).fill('users.email, tickets.notes');
    await form.getByLabel('Attributes of kind 2', { exact: true }).fill('users.phone');
    await form.getByRole('button', { name: 'Add a kind' }).click();
    await form.getByLabel('Kind 3', { exact: true }).fill('loyalty');
    await form.getByLabel('Attributes of kind 3', { exact: true }).fill('customers.loyalty_id');
    await form.getByRole('button', { name: 'Save identity attributes' }).click();
    await form.getByText('Identity attributes saved.').waitFor();
    await form.getByTestId('identity-state').getByText('Declared').waitFor();
    const saved = await stored();
    assert.equal(saved.declared, true);
    assert.deepEqual(saved.identities, {
      email: ['users.email', 'tickets.notes'],
      phone_number: ['users.phone'],
      loyalty: ['customers.loyalty_id'],
    });
    assert.deepEqual(await accessibilityViolations(page), []);

    await form.getByLabel('Attributes of kind 1', { exact: true }).fill('users.email, notes');
    await form.getByRole('button', { name: 'Save identity attributes' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    assert.match(
      (await alert.textContent()) ?? '',
      /email\[1\] must be a name of the form <table>\.<attribute>/,
    );
    assert.deepEqual((await stored()).identities.email, ['users.email', 'tickets.notes'], 'nothing changed');

    await form.getByRole('button', { name: 'Use the default' }).click();
    await form.getByText('Back to the default identity attributes.').waitFor();
    await form.getByTestId('identity-state').getByText('Default').waitFor();
    assert.equal((await stored()).declared, false);
    assert.deepEqual(pageProblems, []);
  });
});
