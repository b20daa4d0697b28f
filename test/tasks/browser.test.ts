// The task inbox and a respondent's answer in a real Chromium against a real Lethe, worker and SMTP server:
// an operator sees their open tasks with due dates, opens one, fills the form generated from the system's
// fields and completes it, and the request completes with the data; a respondent opens the mailed link, a
// page without script, answers, and the link then says it was used; a request with an overdue task shows
// the stuck badge and is what the stuck filter keeps. The inbox and the respondent page pass axe's WCAG
// 2.1 AA rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type MailServer, startMailServer, subjectSideConfig } from '../helpers/subject-side.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signInAsOperator,
  watchForPageProblems,
} from '../console/browser.ts';
import { submit, waitForStatus } from '../privacy-requests/support.ts';
import { putManualSystem, tasksOf } from './support.ts';

const PASSWORD = 'clara password for the console';
const VENDOR = 'answers@vendor.example';

async function expectNoViolations(page: Page, where: string) {
  const violations = await accessibilityViolations(page);
  assert.deepEqual(
    violations.map((violation) => `${where}: ${violation.id} (${violation.impact}) ${violation.help}`),
    [],
  );
}

describe('tasks in the browser', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let page: Page;
  let token: string;
  const pageProblems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    mail = await startMailServer();
    service = await startTestService(subjectSideConfig(mail.port), { worker: true });
    browser = await launchBrowser();
    token = await service.rootToken();
    const created = await service.call('POST', '/v1/user', {
      token,
      json: { username: 'clara', password: PASSWORD, roles: ['contributor'] },
    });
    assert.equal(created.status, 201, created.text);
    await putManualSystem(service, 'crm', { name: 'Old CRM', assignee: 'clara', respondent_email: VENDOR });
    const policy = await service.call('PATCH', '/v1/dsr/policy', {
      token,
      json: [{ name: 'crm access', key: 'crm_access', drp_action: 'access' }],
    });
    assert.deepEqual(policy.body.failed, [], policy.text);
    page = await browser.newPage();
    watchForPageProblems(page, pageProblems);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  test('an operator completes a task from the inbox', { timeout: 180_000 }, async () => {
    const request = await submit(service, {
      policy_key: 'crm_access',
      identity: { email: 'lu@example.com' },
    });
    await waitForStatus(service, request.id, 'requires_input');
    const [task] = await tasksOf(service, request.id);

    await signInAsOperator(page, service, 'clara', PASSWORD);
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Tasks', exact: true })
      .click();
    await page.getByLabel('Show').selectOption('mine');
    const row = page.locator(`tr[data-task-id="${task.id}"]`);
    await row.waitFor();
    assert.match(await row.innerText(), /Old CRM \(access\)/);
    await expectNoViolations(page, 'tasks');
    await row.getByRole('button', { name: 'Open' }).click();
    await row.getByLabel('Customer number').fill('C-7781');
    await row.getByLabel('Notes on file').fill('one order, 2021');
    await screenshot(page, 'task-form');
    await row.getByRole('button', { name: 'Complete' }).click();
    await row.waitFor({ state: 'detached' });

    await waitForStatus(service, request.id, 'complete');
    const results = await service.call('GET', `/v1/privacy-request/${request.id}/access-results`, { token });
    assert.deepEqual(results.body.manual_systems, [
      { key: 'crm', name: 'Old CRM', data: { customer_number: 'C-7781', notes: 'one order, 2021' } },
    ]);
    assert.equal((await tasksOf(service, request.id))[0].done_by, 'clara');
  });

  test('a respondent answers through the mailed link', { timeout: 180_000 }, async () => {
    const request = await submit(service, {
      policy_key: 'crm_access',
      identity: { email: 'mo@example.com' },
    });
    await waitForStatus(service, request.id, 'requires_input');
    const [task] = await tasksOf(service, request.id);
    const invited = await service.call('POST', `/v1/task/${task.id}/invite`, { token });
    assert.equal(invited.status, 200, invited.text);
    const invite = await mail.waitFor(
      (candidate) => candidate.to.includes(VENDOR) && candidate.text.includes(task.system_name),
    );
    const link = /(http:\/\/[^\s"<]+\/respond\/[A-Za-z0-9_-]{43})/.exec(invite.text)?.[1];
    assert.ok(link);

    // The page has no script (its CSP forbids any); axe is evaluated through the DevTools protocol.
    const respondent = await browser.newPage();
    await respondent.goto(link);
    await expectNoViolations(respondent, 'respondent page');
    await respondent.getByLabel('Customer number').fill('V-100');
    await respondent.getByRole('button', { name: 'Send the answer' }).click();
    await respondent.getByRole('heading', { name: 'Thank you' }).waitFor();
    await waitForStatus(service, request.id, 'complete');
    const [done] = await tasksOf(service, request.id);
    assert.equal(done.done_by, 'respondent');
    await respondent.goto(link);
    await respondent.getByRole('heading', { name: 'This link was already used' }).waitFor();
    await respondent.close();
  });

  test(
    'a request with an overdue task is flagged stuck and kept by the filter',
    { timeout: 180_000 },
    async () => {
      const request = await submit(service, {
        policy_key: 'crm_access',
        identity: { email: 'ned@example.com' },
      });
      await waitForStatus(service, request.id, 'requires_input');
      const [task] = await tasksOf(service, request.id);
      await service.services.db.query(`UPDATE tasks SET due_at = now() - interval '1 day' WHERE id = $1`, [
        task.id,
      ]);

      await page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: 'Privacy requests', exact: true })
        .click();
      const row = page.locator(`tr[data-request-id="${request.id}"]`);
      await row.locator('.badge.stuck').waitFor();
      await page.getByLabel('Stuck only').check();
      await page.locator('tr[data-request-id]').first().waitFor();
      await page.waitForFunction(
        (id) =>
          [...document.querySelectorAll('tr[data-request-id]')].every(
            (tr) => tr.getAttribute('data-request-id') === id,
          ),
        request.id,
      );
      assert.equal(await page.locator('tr[data-request-id]').count(), 1);
      await screenshot(page, 'requests-stuck');
      assert.deepEqual(pageProblems, []);
    },
  );

  test('an operator creates a manual system in its page', { timeout: 180_000 }, async () => {
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Manual systems', exact: true })
      .click();
    const form = page.getByRole('form', { name: 'Create or replace a manual system' });
    await form.getByLabel('Key').fill('ledger');
    await form.getByLabel('Name').fill('Paper ledger');
    await form.getByLabel('erasure').check();
    await form.getByLabel('Fields').fill('page: Page number\nshelf: Shelf');
    await form.getByLabel('Instructions', { exact: true }).fill('In the basement.');
    await form.getByLabel('Instructions in other languages').fill('{"de": {"instructions": "Im Keller."}}');
    await form.getByLabel('Assignee (an operator)').fill('clara');
    await form.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-system-key="ledger"]').waitFor();
    await expectNoViolations(page, 'manual systems');
    const saved = await service.call('GET', '/v1/manual-system/ledger', { token });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual(saved.body.actions, ['access', 'erasure']);
    assert.deepEqual(saved.body.fields, [
      { name: 'page', label: 'Page number' },
      { name: 'shelf', label: 'Shelf' },
    ]);
    assert.equal(saved.body.assignee, 'clara');
    assert.deepEqual(saved.body.translations, { de: { instructions: 'Im Keller.' } });
    assert.equal(
      await page.locator('tr[data-system-key="ledger"] td[data-label="Instructions also in"]').textContent(),
      'de',
    );
    assert.deepEqual(pageProblems, []);
  });
});
