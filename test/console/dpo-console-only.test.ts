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

  // First: it reads the fresh installation (no datastore, no operator, nothing published).
  test('the first screen says what to do first, each item from the real state; an owner is created as an owner only', async () => {
    const page = await newPage();
    await signIn(page, service);
    await page.getByRole('heading', { level: 1, name: 'First steps' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/start');
    const status = (title: string) =>
      page.locator(`li[data-step="${title}"]`).getByTestId('step-status').textContent();
    const steps = ['Connect a datastore', 'Publish the privacy center', 'Set jurisdictions', 'Add operators'];
    await page.waitForFunction(
      () =>
        ![...document.querySelectorAll('[data-testid="step-status"]')].some((status) =>
          status.textContent?.includes('checking'),
        ),
    );
    for (const step of steps) assert.equal(await status(step), '(to do)', step);

    // An owner, created in the console, is an owner only (a preset "viewer" stayed ticked before).
    await page.locator('li[data-step="Add operators"]').getByRole('link').click();
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('Username').fill('olga.owner');
    await form.getByLabel('Password').fill('a password for olga');
    await form.getByRole('checkbox', { name: /owner/ }).check();
    assert.deepEqual(
      await form
        .getByRole('checkbox')
        .evaluateAll((boxes) =>
          boxes
            .filter((box) => (box as HTMLInputElement).checked)
            .map((box) => box.parentElement?.querySelector('strong')?.textContent),
        ),
      ['owner'],
    );
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByText('Created olga.owner. They can sign in now.').waitFor();
    assert.match(
      (await page.getByRole('row', { name: /olga\.owner/ }).textContent()) ?? '',
      /^olga\.owner\s*owner(?!.*viewer)/,
    );

    // The privacy center published with the default policies; a datastore receives data.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Privacy center' })
      .click();
    await page.getByRole('button', { name: 'Publish the default policies' }).click();
    await page.getByRole('button', { name: 'Save the privacy center' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /saved|published/i })
      .first()
      .waitFor();
    const store = await apiClient(service, 'first_store');
    await store.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'first@example.com' }] }],
    });

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'First steps' })
      .click();
    await page.getByText('1 operator account(s).').waitFor();
    await page.waitForFunction(
      () =>
        ![...document.querySelectorAll('[data-testid="step-status"]')].some((status) =>
          status.textContent?.includes('checking'),
        ),
    );
    assert.equal(await status('Connect a datastore'), '(done)');
    assert.equal(await status('Publish the privacy center'), '(done)');
    assert.equal(await status('Add operators'), '(done)');
    // Jurisdictions: done only when every published policy names one (read from the policies as they are).
    const policies = (await setUp('GET', '/v1/dsr/policy?size=1000')) as {
      items: { key: string; jurisdiction: string | null }[];
    };
    const published = policies.items.filter((policy) =>
      ['default_access_policy', 'default_erasure_policy'].includes(policy.key),
    );
    assert.equal(
      await status('Set jurisdictions'),
      published.every((policy) => policy.jurisdiction) ? '(done)' : '(to do)',
    );
    await screenshot(page, 'first-steps');
    await page.context().close();
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
    // Whether an update rule takes targets is the registry's (GET /v1/action-type). Where it does, the field
    // is shown, starts empty (never a silent `*`: what a correction may write is the operator's choice) and
    // is required; where it does not, it is disabled.
    const registry = (await setUp('GET', '/v1/action-type')) as {
      name: string;
      rule: { targets: boolean };
    }[];
    const updateTargets = registry.find((type) => type.name === 'update')?.rule.targets ?? false;
    const targets = rule.getByLabel('Targets');
    assert.equal(await targets.isDisabled(), !updateTargets);
    if (updateTargets) {
      assert.equal(await targets.inputValue(), '', 'no silent default');
      assert.equal(await targets.evaluate((input) => (input as HTMLInputElement).required), true);
      await targets.fill('customers.email');
    }
    await rule.getByRole('button', { name: 'Save rule' }).click();
    await rule.getByText('Rule correct_email saved.').waitFor();
    const rows = page.locator('section[aria-labelledby="rules-heading"] tbody tr');
    // The message comes with the save's answer; the table follows when the policy is read again.
    await rows.filter({ hasText: 'correct_email' }).waitFor();
    assert.deepEqual(
      await rows.evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      ),
      [
        ['Marketing opt-out', 'marketing_opt_out', 'consent', '—', '*', '—'],
        ['Correct the email', 'correct_email', 'update', '—', updateTargets ? 'customers.email' : '*', '—'],
      ],
    );
    await page.context().close();
  });

  test('a policy’s jurisdiction is chosen in the console from GET /v1/jurisdiction', async () => {
    await setUp('PATCH', '/v1/dsr/policy', [
      { name: 'Regional access', key: 'regional_access', drp_action: 'access', execution_timeframe: 40 },
    ]);
    const rules = (await setUp('GET', '/v1/jurisdiction')) as { code: string }[];
    const page = await newPage();
    await signIn(page, service, '/console/policies/regional_access');
    const form = page.getByRole('form', { name: 'Set the jurisdiction' });
    const select = form.getByLabel('Jurisdiction');
    await select.locator('option[value="US-CA"]').waitFor({ state: 'attached' });
    assert.deepEqual(
      await select
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value)),
      ['', ...rules.map((rule) => rule.code)],
      'none, then the service’s own jurisdictions',
    );
    assert.equal(await select.inputValue(), '');
    await select.selectOption('US-CA');
    await form.getByRole('button', { name: 'Save jurisdiction' }).click();
    await form.getByText('Jurisdiction set to US-CA.').waitFor();
    const stored = (await setUp('GET', '/v1/dsr/policy/regional_access')) as Record<string, unknown>;
    assert.deepEqual(
      [stored.jurisdiction, stored.drp_action, stored.execution_timeframe],
      ['US-CA', 'access', 40],
      'the jurisdiction changes, nothing else',
    );

    await page.goto(`${service.url}/console/policies`);
    const create = page.getByRole('form', { name: 'Create a policy' });
    await create.getByLabel('Jurisdiction').locator('option[value="EU"]').waitFor({ state: 'attached' });
    await create.getByLabel('Name').fill('Europe only');
    await create.getByLabel('Key').fill('europe_only');
    await create.getByLabel('Jurisdiction').selectOption('EU');
    await create.getByRole('button', { name: 'Create policy' }).click();
    await page.getByText('Policy europe_only created.').waitFor();
    const europe = (await setUp('GET', '/v1/dsr/policy/europe_only')) as Record<string, unknown>;
    assert.equal(europe.jurisdiction, 'EU');
    // The default policies ship with the EU's month (migration 037), shown in the list.
    const row = page.getByRole('row').filter({ hasText: 'default_access_policy' });
    assert.equal(await row.locator('td[data-label="Jurisdiction"]').textContent(), 'EU');
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
    // The next journey's access request must wait for its own system only.
    await setUp('DELETE', '/v1/manual-system/old_crm_access');
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
    const row = page.locator('tr', { hasText: request.id }).filter({ hasText: 'Loyalty cards' });
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
