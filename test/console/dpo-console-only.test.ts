// A DPO who uses only the console (issue 37), in a real Chromium against a real Lethe, worker and SMTP
// server. The service is set up through the API (datastores and their entities, policies, manual systems,
// the subject's requests); everything the DPO does is clicks in the console: rules with no silent default
// action, consent and update rules, the datastore disclosure, a respondent invited from the task, the
// erasure preview before an approval.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { readFile } from 'node:fs/promises';
import {
  downloadLinkIn,
  isKind,
  type MailServer,
  readZip,
  startMailServer,
  subjectSideConfig,
} from '../helpers/subject-side.ts';
import { submit } from '../privacy-requests/support.ts';
import { putManualSystem } from '../tasks/support.ts';
import { ensureConsoleBuilt, launchBrowser, screenshot, signIn, watchForPageProblems } from './browser.ts';

describe('a DPO who uses only the console', () => {
  let mail: MailServer;
  let service: TestService;
  let browser: Browser;
  let token: string;
  const pageProblems: string[] = [];

  /** Sets the service up (never a step of the DPO's journey). */
  const setUp = async (method: string, urlPath: string, json?: unknown) => {
    const answer = await service.call(method, urlPath, { token, json });
    assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    watchForPageProblems(page, pageProblems);
    return page;
  }

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
    token = await service.rootToken();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
    await mail?.close();
  });

  test('a rule starts on its policy’s action or on no action; consent and update rules are made in the console', async () => {
    await setUp('PATCH', '/v1/dsr/policy', [
      { name: 'Marketing access', key: 'marketing_access', drp_action: 'access' },
      { name: 'Preferences', key: 'preferences' },
    ]);
    const page = await newPage();
    await signIn(page, service, '/console/policies/marketing_access');
    let rule = page.getByRole('form', { name: 'Add or redefine a rule' });
    await rule.locator('option[value="erasure"]').waitFor({ state: 'attached' });
    assert.equal(await rule.getByLabel('Action type').inputValue(), 'access', 'the policy’s action decides');

    await page.goto(`${service.url}/console/policies/preferences`);
    rule = page.getByRole('form', { name: 'Add or redefine a rule' });
    await rule.locator('option[value="erasure"]').waitFor({ state: 'attached' });
    const action = rule.getByLabel('Action type');
    assert.equal(await action.inputValue(), '', 'no action is chosen for the operator');
    await rule.getByLabel('Rule name').fill('Marketing opt-out');
    await rule.getByLabel('Rule key').fill('marketing_opt_out');
    await rule.getByRole('button', { name: 'Save rule' }).click();
    assert.equal(
      await action.evaluate((select) => (select as HTMLSelectElement).validity.valueMissing),
      true,
    );
    await page.reload();
    await page.getByText('No rule yet').waitFor();

    rule = page.getByRole('form', { name: 'Add or redefine a rule' });
    await rule.locator('option[value="consent"]').waitFor({ state: 'attached' });
    await rule.getByLabel('Rule name').fill('Marketing opt-out');
    await rule.getByLabel('Rule key').fill('marketing_opt_out');
    await rule.getByLabel('Action type').selectOption('consent');
    assert.equal(await rule.getByLabel('Targets').isDisabled(), true);
    await rule.getByRole('button', { name: 'Save rule' }).click();
    await rule.getByText('Rule marketing_opt_out saved.').waitFor();

    await rule.getByLabel('Rule name').fill('Correct the email');
    await rule.getByLabel('Rule key').fill('correct_email');
    await rule.getByLabel('Action type').selectOption('update');
    // Corrections name their own table.attribute; an update rule takes no targets (GET /v1/action-type).
    assert.equal(await rule.getByLabel('Targets').isDisabled(), true);
    await rule.getByRole('button', { name: 'Save rule' }).click();
    await rule.getByText('Rule correct_email saved.').waitFor();
    const rows = page.locator('section[aria-labelledby="rules-heading"] tbody tr');
    assert.deepEqual(
      await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      ),
      [
        ['Marketing opt-out', 'marketing_opt_out', 'consent', '—', '*', '—'],
        ['Correct the email', 'correct_email', 'update', '—', '*', '—'],
      ],
    );
    await page.context().close();
  });

  test('an erasure is approved only after the console showed what it will touch', async () => {
    const store = await apiClient(service, 'shop');
    await store.call('/api/entity/create', {
      json: [
        {
          name: 'customers',
          attributes: [
            { name: 'email', value: 'eve@example.com' },
            { name: 'name', value: 'Eve' },
            { name: 'nickname', value: null },
          ],
        },
        { name: 'customers', attributes: [{ name: 'email', value: 'someone.else@example.com' }] },
      ],
    });
    await putManualSystem(service, 'paper_files', { name: 'Paper files', actions: ['erasure'] });
    await putManualSystem(service, 'old_crm_access', { name: 'Old CRM (reads only)', actions: ['access'] });
    await setUp('PATCH', '/v1/connection', [
      { key: 'newsletter_tool', name: 'Newsletter tool', connection_type: 'https', access: 'write' },
    ]);
    await setUp('PUT', '/v1/policy/default_erasure_policy/webhook/pre_execution', [
      {
        connection_config_key: 'newsletter_tool',
        direction: 'one_way',
        key: 'unsubscribe',
        name: 'Unsubscribe',
      },
    ]);
    const request = await submit(service, {
      policy_key: 'default_erasure_policy',
      identity: { email: 'eve@example.com' },
    });

    const page = await newPage();
    await signIn(page, service, `/console/requests/${request.id}`);
    await page.getByRole('button', { name: `Approve ${request.id}` }).click();
    const dialog = page.getByRole('dialog', { name: /Approve the erasure/ });
    const table = dialog.getByRole('table', { name: 'What each datastore would lose' });
    await table.waitFor();
    assert.deepEqual(
      await table
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
        ),
      [['shop', '1', 'default_erasure_rule (nullify: masked)', '1', '2', '0']],
    );
    assert.deepEqual(
      await dialog
        .getByRole('list', { name: 'Manual systems that get an erasure task' })
        .locator('li')
        .allTextContents(),
      ['Paper files (paper_files)'],
    );
    assert.deepEqual(
      await dialog.getByRole('list', { name: 'Webhooks called' }).locator('li').allTextContents(),
      ['Unsubscribe (newsletter_tool, pre-execution)'],
    );
    await screenshot(page, 'erasure-preview');
    // Cancelling approves nothing; the request still waits.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.reload();
    await page.getByRole('button', { name: `Approve ${request.id}` }).click();
    await dialog.getByRole('button', { name: 'Approve erasure' }).click();
    await page.getByRole('button', { name: `Approve ${request.id}` }).waitFor({ state: 'detached' });
    await page.context().close();
  });

  test('disclosure and display names set in the console, a respondent invited from the task, and the report reads them', async () => {
    const store = await apiClient(service, 'members');
    await store.call('/api/entity/create', {
      json: [
        {
          name: 'accounts',
          attributes: [
            { name: 'email', value: 'nina@example.com' },
            { name: 'phone_number', value: '+15550001111' },
            { name: 'tier', value: 'gold' },
          ],
        },
      ],
    });
    await setUp('PATCH', '/v1/dsr/policy', [
      { name: 'Members access', key: 'members_access', drp_action: 'access' },
    ]);
    await setUp('PATCH', '/v1/dsr/policy/members_access/rule', [
      { name: 'Everything', key: 'everything', action_type: 'access' },
    ]);
    const page = await newPage();
    await signIn(page, service, '/console/manual-systems');

    // The manual system names the identifier its respondent needs: the email, not the phone number.
    const system = page.getByRole('form', { name: 'Create or replace a manual system' });
    await system.getByLabel('Key').fill('loyalty_cards');
    await system.getByLabel('Name').fill('Loyalty cards');
    await system.getByLabel('Fields').fill('card_number: Card number');
    await system.getByLabel('Identifiers the system needs').fill('email');
    await system.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-system-key="loyalty_cards"]').waitFor();

    // What every report says of the datastore, and its display names.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Datastores & keys' })
      .click();
    await page.getByLabel('Datastore of the report').selectOption('members');
    const disclosure = page.getByRole('form', { name: 'How members uses the data' });
    await disclosure
      .getByLabel('Purposes')
      .fill('Running your membership\nSending the newsletter you asked for');
    await disclosure.getByLabel('Recipients').fill('Our mailing service');
    await disclosure.getByLabel('Retention').fill('Two years after the membership ends');
    await disclosure.getByRole('button', { name: 'Save disclosure' }).click();
    await disclosure.getByText('What reports say of members is saved.').waitFor();
    const names = page.getByRole('form', { name: 'Display names of members' });
    await names
      .getByLabel('Names shown in reports')
      .fill('accounts: Your membership\naccounts.tier: Membership level');
    await names.getByRole('button', { name: 'Save display names' }).click();
    await names.getByText('Display names saved.').waitFor();
    await page.reload();
    await page.getByLabel('Datastore of the report').selectOption('members');
    assert.equal(
      await page
        .getByRole('form', { name: 'How members uses the data' })
        .getByLabel('Retention')
        .inputValue(),
      'Two years after the membership ends',
    );

    // The subject asks; the DPO approves, then sends the task's link to the loyalty-card vendor.
    const request = await submit(service, {
      policy_key: 'members_access',
      identity: { email: 'nina@example.com', phone_number: '+15550001111' },
    });
    await page.goto(`${service.url}/console/requests/${request.id}`);
    await page.getByRole('button', { name: `Approve ${request.id}` }).click();
    await page.getByRole('button', { name: `Approve ${request.id}` }).waitFor({ state: 'detached' });
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Tasks', exact: true })
      .click();
    const row = page.locator('tr', { hasText: request.id });
    await row.getByRole('button', { name: 'Open' }).click({ timeout: 60_000 });
    const invite = row.getByRole('form', { name: 'Invite a respondent for Loyalty cards' });
    await invite.getByLabel("Respondent's email").fill('cards@vendor.example');
    await invite.getByRole('button', { name: 'Send the link' }).click();
    await invite.getByText(/Link sent; it works once/).waitFor();

    const invited = await mail.waitFor((candidate) => candidate.to.includes('cards@vendor.example'));
    const link = /(http:\/\/[^\s"<]+\/respond\/[A-Za-z0-9_-]{43})/.exec(invited.text)?.[1];
    assert.ok(link, 'the invitation holds the link');
    const respondent = await newPage();
    await respondent.goto(link);
    const whose = respondent.getByRole('region', { name: 'Whose record to look for' });
    assert.deepEqual(await whose.locator('dd').allTextContents(), ['nina@example.com']);
    assert.doesNotMatch(
      await respondent.locator('main').innerText(),
      /5550001111/,
      'only the identifiers named',
    );
    await respondent.getByLabel('Card number').fill('LC-2231');
    await respondent.getByRole('button', { name: 'Send the answer' }).click();
    await respondent.getByRole('heading', { name: 'Thank you' }).waitFor();

    // The subject's package: readable names, the disclosure, the manual system's answer in data.csv.
    const done = await mail.waitFor(isKind('your request is complete', 'nina@example.com'), 60_000);
    const subject = await newPage();
    const [download] = await Promise.all([
      subject.waitForEvent('download'),
      subject.goto(downloadLinkIn(done)).catch(() => undefined),
    ]);
    const entries = await readZip(await readFile((await download.path()) as string));
    const report = (entries.get('report.html') as Buffer).toString('utf8');
    assert.match(report, /<h3>Your membership /);
    assert.match(report, /<th scope="row">Membership level<\/th><td>gold<\/td>/);
    assert.match(report, /<li>Running your membership<\/li>/);
    assert.match(report, /Two years after the membership ends/);
    const csv = (entries.get('data.csv') as Buffer).toString('utf8');
    assert.match(csv, /"Loyalty cards","","","card_number","LC-2231"/);
    await Promise.all([page.context().close(), respondent.context().close(), subject.context().close()]);
  });

  test('no page threw a script error or had anything blocked by its CSP', () => {
    assert.deepEqual(pageProblems, []);
  });
});
