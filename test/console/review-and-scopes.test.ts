// The console's review views in a real Chromium against a real Lethe: closed requests say how long they
// took and sort after the open ones, timeline rows carry their date, the deny dialog is centred and shows
// the request it denies, a connection's signing secret is shown once at creation and at rotation, a
// read-only client finds every form it cannot send disabled, and the audit log's action names never break
// inside a word. Each test signs in on its own page; every page passes axe's WCAG 2.1 A and AA rules.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signIn,
  watchForPageProblems,
} from './browser.ts';

describe('console review views and scopes', () => {
  let service: TestService;
  let browser: Browser;
  let token: string;
  const contexts: BrowserContext[] = [];

  const api = async (method: string, urlPath: string, json?: unknown) => {
    const answer = await service.call(method, urlPath, { token, json });
    assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  /** A fresh page (its own context, so its own session) watched for script errors and CSP refusals. */
  async function newPage(
    viewport = { width: 1280, height: 800 },
  ): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    watchForPageProblems(page, problems);
    return { page, problems };
  }

  async function assertAccessible(page: Page, where: string) {
    assert.deepEqual(await accessibilityViolations(page), [], `axe violations on ${where}`);
  }

  async function waitForStatus(id: string, status: string) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const request = await api('GET', `/v1/privacy-request/${id}`);
      if (request.status === status) return request;
      assert.ok(Date.now() < deadline, `request ${id} stayed ${request.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /**
   * How the console counts a request's time left: whole days to its due date, which ends with its last
   * local day. Either of two days, as the count may turn between this read and the page's.
   */
  async function daysLeftPattern(id: string): Promise<RegExp> {
    const { due_date: due } = await api('GET', `/v1/privacy-request/${id}`);
    const left = Math.floor((Date.parse(due) - Date.now()) / 86_400_000);
    return new RegExp(`^(${left}|${left - 1}) days left`);
  }

  async function submit(externalId: string, policyKey = 'default_access_policy'): Promise<string> {
    const answer = await api('POST', '/v1/privacy-request', [
      { policy_key: policyKey, identity: { email: `${externalId}@example.com` }, external_id: externalId },
    ]);
    assert.deepEqual(answer.failed, []);
    return answer.succeeded[0].id as string;
  }

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([
      startTestService({ requireManualApproval: true, jobPollingIntervalSeconds: 0.5 }, { worker: true }),
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

  test('closed requests say how long they took and come after the open ones, which count down', async () => {
    const completed = await submit('closed-complete');
    const denied = await submit('closed-denied');
    const open = await submit('still-open');
    await api('PATCH', '/v1/privacy-request/administrate/approve', { request_ids: [completed] });
    await api('PATCH', '/v1/privacy-request/administrate/deny', {
      request_ids: [denied],
      reason: 'duplicate',
    });
    await waitForStatus(completed, 'complete');

    const { page, problems } = await newPage();
    await signIn(page, service, '/console/requests');
    const rows = page.locator('table.requests tbody tr');
    await rows.first().waitFor();
    const order = await rows.evaluateAll((elements) =>
      elements.map((row) => (row as HTMLElement).dataset.requestId),
    );
    assert.ok(order.indexOf(open) < order.indexOf(completed), 'open before complete');
    assert.ok(order.indexOf(open) < order.indexOf(denied), 'open before denied');

    const deadlineOf = (id: string) => page.locator(`tr[data-request-id="${id}"] td[data-label="Deadline"]`);
    assert.equal((await deadlineOf(completed).textContent())?.trim(), 'completed within a day');
    assert.equal((await deadlineOf(denied).textContent())?.trim(), 'denied within a day');
    assert.match((await deadlineOf(open).textContent()) ?? '', await daysLeftPattern(open));

    await page.locator(`tr[data-request-id="${completed}"]`).getByRole('link').click();
    await page.getByRole('heading', { level: 1, name: /closed-complete/ }).waitFor();
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    assert.match(facts, /Tookcompleted within a day \(due /);
    assert.doesNotMatch(facts, /days left/);
    await assertAccessible(page, 'the requests list and a closed request');
    assert.deepEqual(problems, []);
  });

  test('every timeline row is dated', async () => {
    const id = await submit('dated-timeline');
    await api('PATCH', '/v1/privacy-request/administrate/approve', { request_ids: [id] });
    const request = await waitForStatus(id, 'complete');

    const { page, problems } = await newPage();
    await signIn(page, service, `/console/requests/${id}`);
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText(/→ complete/).waitFor();
    const rows = await timeline.locator('li').evaluateAll((items) =>
      items.map((item) => ({
        dateTime: item.querySelector('time')?.getAttribute('datetime') ?? '',
        date: item.querySelector('time .timeline-date')?.textContent ?? '',
      })),
    );
    assert.ok(rows.length >= 4, `${rows.length} timeline rows`);
    const expected = await page.evaluate(
      (at) => new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(new Date(at)),
      request.requested_at as string,
    );
    for (const row of rows) {
      assert.ok(row.dateTime, 'each row has a machine-readable time');
      assert.equal(row.date, expected);
    }
    assert.match(expected, new RegExp(String(new Date(request.requested_at).getFullYear())));
    await assertAccessible(page, 'a request timeline');
    assert.deepEqual(problems, []);
  });

  test('the deny dialog opens centred and shows the request it denies', async () => {
    const id = await submit('to-be-denied');
    const { page, problems } = await newPage({ width: 1280, height: 800 });
    await signIn(page, service, '/console/requests');
    const row = page.locator(`tr[data-request-id="${id}"]`);
    await row.getByRole('button', { name: `Deny ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: /Deny request to-be-denied/ });
    await dialog.waitFor();
    const box = await dialog.boundingBox();
    assert.ok(box);
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    assert.ok(Math.abs(centre.x - 640) < 8, `dialog centred horizontally (centre at ${centre.x})`);
    assert.ok(Math.abs(centre.y - 400) < 8, `dialog centred vertically (centre at ${centre.y})`);
    const context = (await dialog.locator('dl').textContent()) ?? '';
    assert.match(context, new RegExp(id));
    assert.match(context, /Default access policy|default_access_policy/);
    assert.match(context, /t\*\*\*@example\.com/);
    const daysLeft = await daysLeftPattern(id);
    assert.match(context, new RegExp(daysLeft.source.slice(1)));
    assert.doesNotMatch(context, /to-be-denied@example\.com/);
    await assertAccessible(page, 'the deny dialog');
    await screenshot(page, 'deny-dialog', false);

    await dialog.getByLabel('Reason').fill('Not a customer of ours');
    await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal((await waitForStatus(id, 'denied')).status, 'denied');
    assert.deepEqual(problems, []);
  });

  test('a connection signing secret is shown once at creation and once more at each rotation', async () => {
    const { page, problems } = await newPage();
    await signIn(page, service, '/console/connections');
    const form = page.getByRole('form', { name: 'Create a connection' });
    await form.getByLabel('Name').fill('Signed CRM');
    await form.getByLabel('Key', { exact: true }).fill('signed_crm');
    await form.getByRole('button', { name: 'Create connection' }).click();
    const shown = page.locator('.secret-once code');
    await shown.waitFor();
    const first = (await shown.textContent()) ?? '';
    assert.match(first, /^whsec_/);
    await assertAccessible(page, 'a created connection with its signing secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.locator('.secret-once').count(), 0);
    const listed = await api('GET', '/v1/connection/signed_crm');
    assert.equal(JSON.stringify(listed).includes(first), false, 'the API never answers it again');

    await page.getByRole('link', { name: 'Signed CRM' }).click();
    const signing = page.getByRole('form', { name: 'Callback signing secret' });
    await signing.waitFor();
    assert.equal(await signing.locator('.secret-once').count(), 0, 'nothing is shown before a rotation');
    await signing.getByLabel('Grace period (seconds)').fill('600');
    await signing.getByRole('button', { name: 'Rotate signing secret' }).click();
    const rotated = signing.locator('.secret-once code');
    await rotated.waitFor();
    const second = (await rotated.textContent()) ?? '';
    assert.match(second, /^whsec_/);
    assert.notEqual(second, first);
    assert.match((await signing.locator('.secret-once').textContent()) ?? '', /previous secret/);
    await assertAccessible(page, 'a rotated signing secret');
    await signIn(page, service, '/console/connections/signed_crm');
    await page.getByRole('form', { name: 'Callback signing secret' }).waitFor();
    assert.equal(await page.locator('.secret-once').count(), 0, 'gone once the page is left');
    assert.deepEqual(problems, []);
  });

  test('a read-only client finds every form it cannot send disabled, with the scope it lacks', async () => {
    await submit('for-the-reader');
    await api('PATCH', '/v1/connection', [
      { name: 'Reader target', key: 'reader_target', connection_type: 'https', access: 'read' },
    ]);
    const reader = await api('POST', '/v1/oauth/client', {
      name: 'read-only dashboard',
      scopes: ['privacy-request:read', 'connection:read', 'policy:read', 'webhook:read'],
    });
    const { page, problems } = await newPage();
    await signIn(page, service, '/console/requests', { id: reader.client_id, secret: reader.client_secret });

    await page.getByText("Submit a request on a data subject's behalf").click();
    const newRequest = page.getByRole('form', { name: 'Submit a privacy request' });
    assert.equal(await newRequest.getByLabel('Email').isDisabled(), true);
    assert.equal(await newRequest.getByRole('button', { name: 'Submit request' }).isDisabled(), true);
    assert.match((await newRequest.textContent()) ?? '', /needs the scope privacy-request:create/);
    const pendingRow = page.locator('tbody tr', { hasText: 'for-the-reader' });
    assert.equal(await pendingRow.getByRole('button', { name: /^Approve/ }).isDisabled(), true);
    assert.equal(await pendingRow.getByRole('button', { name: /^Deny/ }).isDisabled(), true);
    await assertAccessible(page, 'the requests page, read only');

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Connections' })
      .click();
    const create = page.getByRole('form', { name: 'Create a connection' });
    await create.waitFor();
    assert.equal(await create.getByLabel('Name').isDisabled(), true);
    assert.match((await create.textContent()) ?? '', /connection:create_or_update/);
    await page.getByRole('link', { name: 'Reader target' }).click();
    await page.getByRole('form', { name: 'Connection secrets' }).waitFor();
    for (const form of ['Connection secrets', 'OAuth client credentials', 'Callback signing secret']) {
      const buttons = page.getByRole('form', { name: form }).getByRole('button');
      for (const button of await buttons.all()) assert.equal(await button.isDisabled(), true, form);
    }
    assert.equal(await page.getByRole('button', { name: 'Delete connection' }).isDisabled(), true);
    await assertAccessible(page, 'a connection, read only');

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Policies' }).click();
    const policy = page.getByRole('form', { name: 'Create a policy' });
    await policy.waitFor();
    assert.equal(await policy.getByRole('button', { name: 'Create policy' }).isDisabled(), true);
    const addWebhook = page.getByRole('form', { name: 'Add to pre-approval webhooks' });
    assert.equal(await addWebhook.getByRole('button', { name: 'Add webhook' }).isDisabled(), true);
    await assertAccessible(page, 'the policies page, read only');
    await screenshot(page, 'read-only-policies');
    assert.deepEqual(problems, []);

    // The root client sees the same forms enabled.
    const { page: rootPage } = await newPage();
    await signIn(rootPage, service, '/console/connections');
    assert.equal(
      await rootPage.getByRole('form', { name: 'Create a connection' }).getByLabel('Name').isDisabled(),
      false,
    );
  });

  test("the audit log's action names never break inside a word", async () => {
    await api('POST', '/v1/datastore', { name: 'audited' });
    const issued = await api('POST', '/v1/api-key', { name: 'writer', datastores: ['audited'] });
    const created = await service.call('POST', '/api/entity/create', {
      headers: { 'api-key': issued.key, datastore: 'audited', 'content-type': 'application/json' },
      body: JSON.stringify([{ name: 'customer', attributes: [{ name: 'note', value: 'x'.repeat(300) }] }]),
    });
    assert.equal(created.status, 203, created.text);

    const { page, problems } = await newPage({ width: 1024, height: 768 });
    await signIn(page, service, '/console/audit-log');
    const action = page.locator('td.action code').first();
    await action.waitFor();
    const layout = await action.evaluate((element) => ({
      whiteSpace: getComputedStyle(element).whiteSpace,
      lines: element.getClientRects().length,
      text: element.textContent,
    }));
    assert.equal(layout.whiteSpace, 'nowrap');
    assert.equal(layout.lines, 1, `${layout.text} renders on one line`);
    await assertAccessible(page, 'the audit log');
    assert.deepEqual(problems, []);
  });
});
