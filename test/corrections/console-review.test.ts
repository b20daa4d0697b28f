// The reviewer's side of a correction in the console (real Chromium, real service and store): the
// request page shows each matched entity's value before and after, and approving there writes it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { accessibilityViolations, launchBrowser, screenshot, signIn } from '../console/browser.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { attributesOf, openStores, seedSubject, type Stores } from '../privacy-requests/rule-support.ts';
import { engineConfig, submit, waitForStatus } from '../privacy-requests/support.ts';

describe('a correction reviewed in the console', () => {
  let service: TestService;
  let browser: Browser;
  let stores: Stores;
  before(async () => {
    service = await startTestService(engineConfig, { worker: true });
    browser = await launchBrowser();
    stores = await openStores(service);
    const token = await service.rootToken();
    await service.call('PATCH', '/v1/dsr/policy', { token, json: [{ name: 'Rectify', key: 'rectify' }] });
    const rule = await service.call('PATCH', '/v1/dsr/policy/rectify/rule', {
      token,
      json: [{ name: 'Correct', key: 'correct', action_type: 'update', targets: ['users.name'] }],
    });
    assert.deepEqual(rule.body.failed, [], rule.text);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('before and after per entity, then approval writes the value', async () => {
    const subject = await seedSubject(stores, 'ria');
    const oldName = (await attributesOf(stores.crm, subject.crm.userId)).name;
    const created = await submit(service, {
      policy_key: 'rectify',
      identity: { email: subject.email },
      corrections: [{ attribute: 'users.name', value: 'Ria Rectified' }],
    });
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(page, service, `/console/requests/${created.id}`);
    const table = page.getByRole('table', { name: 'What approving writes, per matched entity' });
    await table.waitFor();
    const row = table.getByRole('row').filter({ hasText: 'users.name' });
    assert.equal(await row.getByRole('cell').nth(3).textContent(), oldName);
    assert.equal(await row.getByRole('cell').nth(4).textContent(), 'Ria Rectified');
    assert.deepEqual(await accessibilityViolations(page), [], 'axe-core on the request page');
    await screenshot(page, 'correction-review');
    await page.getByRole('button', { name: `Approve ${created.id}` }).click();
    await waitForStatus(service, created.id, 'complete');
    assert.equal((await attributesOf(stores.crm, subject.crm.userId)).name, 'Ria Rectified');
  });
});
