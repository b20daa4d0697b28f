// End to end through the console in a real Chromium against a real Lethe (store, queue, worker): sign-in,
// API keys used against /api, connections and their write-only secrets, webhook reordering by drag and
// drop and by keyboard, and a pending request approved and watched to completion with its timeline. The
// tests run in order on one service and build on each other (a connection made in one is used later).
import assert from 'node:assert/strict';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
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

const DOCS_SCREENSHOT = path.resolve(import.meta.dirname, '../../docs/images/request-timeline.png');

interface ReceivedCall {
  path: string;
  body: { callback_type?: string; direction?: string; privacy_request_id?: string };
}

/**
 * A webhook target on 127.0.0.1 that records each call. `/halt` answers `{"halt": true}`, `/flaky` fails
 * its first call with 500, everything else answers 200 `{}`.
 */
async function startReceiver(): Promise<{ server: Server; url: string; calls: ReceivedCall[] }> {
  const calls: ReceivedCall[] = [];
  const read = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer(async (request, response) => {
    const text = await read(request);
    const path = request.url ?? '';
    calls.push({ path, body: text ? JSON.parse(text) : {} });
    if (path === '/flaky' && calls.filter((call) => call.path === '/flaky').length === 1) {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('down for a moment');
      return;
    }
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(path === '/halt' ? '{"halt": true}' : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

/** A link of the console's main navigation. */
function navLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`${what}: last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the console in a browser', () => {
  let service: TestService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let token: string;
  const pageProblems: string[] = [];

  const api = async (method: string, urlPath: string, json?: unknown) => {
    const answer = await service.call(method, urlPath, { token, json });
    assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const webhookKeys = async (listPath: string) =>
    ((await api('GET', listPath)) as { key: string }[]).map((webhook) => webhook.key);

  before(async () => {
    ensureConsoleBuilt();
    // Both are kept even when the other fails to start, so that after() stops them: a service left
    // running when the browser could not be launched kept the test process from ever exiting.
    const [started, launched] = await Promise.allSettled([
      startTestService(
        { requireManualApproval: true, allowInsecureWebhooks: true, webhookAllowedHosts: ['127.0.0.1'] },
        { worker: true },
      ),
      launchBrowser(),
    ]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
    // The connection the webhook tests add webhooks on, made here so that those tests do not depend on
    // the connections test having run before them.
    await api('PATCH', '/v1/connection', [
      { key: 'console_fixture', name: 'Console fixture', connection_type: 'https', access: 'read' },
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.url });
    page = await context.newPage();
    watchForPageProblems(page, pageProblems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  // Each test signs in itself when the page is not signed in, so that any one of them runs alone
  // (--test-name-pattern). The console keeps its token in this tab's sessionStorage, so a session survives
  // a reload but not a new tab or context.
  beforeEach(async () => {
    if (!(await page.getByRole('navigation', { name: 'Sections' }).isVisible())) await signIn(page, service);
  });

  test('signing in: a refused secret shows the API detail; the token lives in sessionStorage only', async () => {
    const root = service.config.rootClient as { id: string; secret: string };
    const refused = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: root.id,
        client_secret: 'wrong',
      }),
    });
    assert.equal(refused.status, 401);

    if (await page.getByRole('navigation', { name: 'Sections' }).isVisible())
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.goto(`${service.url}/console`);
    await page.getByLabel('A management client').check();
    await page.getByLabel('Client id').fill(root.id);
    await page.getByLabel('Client secret').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.getByRole('alert').textContent(), refused.body.detail);

    await page.getByLabel('Client secret').fill(root.secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    // The root client configures Lethe: it lands on what to do first (test/console/dpo-console-only.test.ts).
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'First steps');
    const stored = await page.evaluate(() => ({
      local: localStorage.length,
      session: Object.keys(sessionStorage),
      cookie: document.cookie,
    }));
    assert.deepEqual(stored, { local: 0, session: ['lethe.console.session'], cookie: '' });
    await screenshot(page, 'signed-in');

    // A reload keeps the session and the page it was on.
    await navLink(page, 'Policies').click();
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Policies' }).waitFor();
    assert.ok(await page.getByRole('navigation', { name: 'Sections' }).isVisible());
    assert.equal(new URL(page.url()).pathname, '/console/policies');

    // Signing out forgets it: a reload then shows the sign-in form.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();

    // A new tab does not inherit it.
    const other = await context.newPage();
    await other.goto(`${service.url}/console`);
    await other.getByRole('button', { name: 'Sign in' }).waitFor();
    await other.close();
    await signIn(page, service);
  });

  test('an API key issued in the console works against /api and stops working once revoked', async () => {
    await navLink(page, 'Datastores & keys').click();
    await page.getByRole('heading', { name: 'Datastores and API keys' }).waitFor();
    const datastoreForm = page.getByRole('form', { name: 'Create a datastore' });
    await datastoreForm.getByLabel('Name', { exact: true }).fill('crm');
    await datastoreForm.getByRole('button', { name: 'Create datastore' }).click();
    await page.getByRole('cell', { name: 'crm', exact: true }).waitFor();

    const keyForm = page.getByRole('form', { name: 'Issue an API key' });
    await keyForm.getByLabel('Key name').fill('crm importer');
    await keyForm.getByRole('checkbox', { name: 'crm', exact: true }).check();
    await keyForm.getByLabel('Rate limit per minute (optional)').fill('120');
    await keyForm.getByRole('button', { name: 'Issue key' }).click();
    const issuedKey = (await page.getByTestId('issued-api-key').textContent()) ?? '';
    assert.match(issuedKey, /^lk_/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), issuedKey);
    await screenshot(page, 'api-key-issued');

    const listed = (await api('GET', '/v1/api-key')) as {
      name: string;
      datastores: string[];
      rate_limit_per_minute: number;
    }[];
    assert.deepEqual(
      listed.map(({ name, datastores, rate_limit_per_minute }) => ({
        name,
        datastores,
        rate_limit_per_minute,
      })),
      [{ name: 'crm importer', datastores: ['crm'], rate_limit_per_minute: 120 }],
    );

    const headers = { datastore: 'crm', 'api-key': issuedKey };
    const created = await service.call('POST', '/api/entity/create', {
      headers,
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'jane.doe@example.com' }] }],
    });
    assert.equal(created.status, 203, created.text);
    assert.equal(created.body.length, 1);
    assert.equal(created.body[0].error, null);
    assert.match(created.body[0].id, /^[0-9a-f-]{36}$/);
    const read = await service.call('POST', '/api/entity/get-by-id', { headers, json: [created.body[0].id] });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(
      read.body[0].attributes.map((attribute: { name: string; value: string }) => [
        attribute.name,
        attribute.value,
      ]),
      [['email', 'jane.doe@example.com']],
    );

    await page.getByRole('button', { name: 'Done, hide it' }).click();
    assert.ok(!(await page.content()).includes(issuedKey), 'the key is gone from the page once dismissed');

    await page.getByRole('button', { name: 'Revoke crm importer' }).click();
    await page.getByRole('button', { name: 'Revoke crm importer now' }).click();
    await page.getByText('Key “crm importer” revoked').waitFor();
    const refused = await service.call('POST', '/api/entity/get-by-id', {
      headers,
      json: [created.body[0].id],
    });
    assert.equal(refused.status, 401);

    // The audit log page shows the API's newest entry first.
    const audit = (await api('GET', '/v1/audit-log?size=1')) as { items: { action: string }[] };
    await navLink(page, 'Audit log').click();
    const firstRow = page.getByRole('row').nth(1);
    await firstRow.waitFor();
    assert.equal(await firstRow.getByRole('cell').nth(2).textContent(), audit.items[0]?.action);
  });

  test('connections: secrets and OAuth are write-only; the page never shows them', async () => {
    await navLink(page, 'Connections').click();
    const form = page.getByRole('form', { name: 'Create a connection' });
    await form.getByLabel('Name', { exact: true }).fill('Identity service');
    await form.getByLabel('Key', { exact: true }).fill('identity_service');
    await form.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('link', { name: 'Identity service' }).click();
    await page.getByRole('heading', { name: 'Connection Identity service' }).waitFor();

    const secrets = page.getByRole('form', { name: 'Connection secrets' });
    await secrets.getByLabel('Callback URL').fill('https://hooks.example.com/lethe');
    await secrets.getByLabel('Authorization header value').fill('Bearer console-test-authorization');
    await secrets.getByRole('button', { name: 'Save secrets' }).click();
    await secrets.getByText('Secrets saved.').waitFor();
    assert.equal(await secrets.getByLabel('Authorization header value').inputValue(), '');

    const oauth = page.getByRole('form', { name: 'OAuth client credentials' });
    await oauth.getByLabel('Token URL').fill('https://auth.example.com/token');
    await oauth.getByLabel('Scope').fill('hooks:write');
    await oauth.getByLabel('Client id').fill('lethe-hooks');
    await oauth.getByLabel('Client secret').fill('console-test-client-secret');
    await oauth.getByRole('button', { name: 'Set OAuth' }).click();
    await page.getByText('OAuth configuration set.').waitFor();
    await oauth.getByLabel('Scope').fill('hooks:write hooks:read');
    await oauth.getByRole('button', { name: 'Save OAuth changes' }).click();
    await page.getByText('OAuth configuration updated.').waitFor();

    const stored = await api('GET', '/v1/connection/identity_service');
    assert.equal(stored.secrets.url, 'https://hooks.example.com/lethe');
    assert.equal(stored.secrets.authorization, '**********');
    assert.equal(stored.oauth.scope, 'hooks:write hooks:read');
    assert.equal(stored.oauth.client_secret, '**********');
    const html = await page.content();
    assert.ok(!html.includes('console-test-authorization') && !html.includes('console-test-client-secret'));
    await screenshot(page, 'connection');

    await oauth.getByRole('button', { name: 'Delete OAuth' }).click();
    await page.getByRole('button', { name: 'Delete the OAuth configuration' }).click();
    await page.getByText('OAuth configuration deleted.').waitFor();
    assert.equal((await api('GET', '/v1/connection/identity_service')).oauth, null);
  });

  test('policy webhooks: added, reordered by drag and drop and by keyboard, direction toggled, removed', async () => {
    const listPath = '/v1/policy/default_access_policy/webhook/pre_execution';
    await navLink(page, 'Policies').click();
    await page.getByRole('link', { name: 'Default access policy' }).click();
    const section = page.getByRole('region', { name: 'Pre-execution webhooks' });
    const add = section.getByRole('form');
    for (const [key, name, direction] of [
      ['enrich', 'Enrich identities', 'two_way'],
      ['notify', 'Notify CRM', 'one_way'],
    ] as const) {
      await add.getByLabel('Webhook key').fill(key);
      await add.getByLabel('Webhook name').fill(name);
      await add.getByLabel('Connection').selectOption('console_fixture');
      await add.getByLabel('Direction').selectOption(direction);
      await add.getByRole('button', { name: 'Add webhook' }).click();
      await section.getByRole('listitem').filter({ hasText: name }).waitFor();
    }
    assert.deepEqual(await webhookKeys(listPath), ['enrich', 'notify']);

    const items = section.getByRole('listitem');
    await items.nth(1).dragTo(items.nth(0));
    await until(
      () => webhookKeys(listPath),
      (keys) => keys[0] === 'notify',
      'drag and drop reorders',
    );
    assert.deepEqual(await webhookKeys(listPath), ['notify', 'enrich']);
    await section.getByRole('listitem').first().filter({ hasText: 'Notify CRM' }).waitFor();
    await screenshot(page, 'webhooks-reordered');

    await section.getByRole('button', { name: 'Move Notify CRM down' }).focus();
    await page.keyboard.press('Enter');
    await until(
      () => webhookKeys(listPath),
      (keys) => keys[0] === 'enrich',
      'the keyboard reorders',
    );

    await section.getByRole('button', { name: /^Direction of Notify CRM: one way/ }).click();
    await until(
      async () => ((await api('GET', `${listPath}/notify`)) as { direction: string }).direction,
      (direction) => direction === 'two_way',
      'the direction toggles',
    );

    await section
      .getByRole('listitem')
      .filter({ hasText: 'Enrich identities' })
      .getByRole('button', { name: 'Remove' })
      .click();
    await section.getByRole('button', { name: 'Remove Enrich identities' }).click();
    await until(
      () => webhookKeys(listPath),
      (keys) => keys.length === 1,
      'removal',
    );
    assert.deepEqual(await webhookKeys(listPath), ['notify']);
    await api('PUT', listPath, []);
  });

  test('pre-approval webhooks: added and reordered through the list PUT', async () => {
    await navLink(page, 'Policies').click();
    const section = page.getByRole('region', { name: 'Pre-approval webhooks' });
    const add = section.getByRole('form');
    for (const [key, name] of [
      ['fraud_check', 'Fraud check'],
      ['legal_hold', 'Legal hold'],
    ] as const) {
      await add.getByLabel('Webhook key').fill(key);
      await add.getByLabel('Webhook name').fill(name);
      await add.getByRole('button', { name: 'Add webhook' }).click();
      await section.getByRole('listitem').filter({ hasText: name }).waitFor();
    }
    await section.getByRole('button', { name: 'Move Fraud check down' }).click();
    await until(
      () => webhookKeys('/v1/pre_approval_webhook'),
      (keys) => keys[0] === 'legal_hold',
      'pre-approval reorder',
    );
    assert.deepEqual(await webhookKeys('/v1/pre_approval_webhook'), ['legal_hold', 'fraud_check']);
    await api('PUT', '/v1/pre_approval_webhook', []);
  });

  test('a pending request is approved in the console and its timeline follows it to complete', async () => {
    const receiver = await startReceiver();
    try {
      await api('PATCH', '/v1/connection', [
        { name: 'CRM hooks', key: 'crm_hooks', connection_type: 'https', access: 'read' },
      ]);
      await api('PUT', '/v1/connection/crm_hooks', {
        url: `${receiver.url}/hook`,
        authorization: 'Bearer crm',
      });
      await api('PATCH', '/v1/dsr/policy', [
        { name: 'Console access', key: 'console_access', drp_action: 'access' },
      ]);
      await api('PATCH', '/v1/dsr/policy/console_access/rule', [
        { name: 'Everything', key: 'everything', action_type: 'access' },
      ]);
      await api('PUT', '/v1/policy/console_access/webhook/pre_execution', [
        { connection_config_key: 'crm_hooks', direction: 'two_way', key: 'open_ticket', name: 'Open ticket' },
      ]);
      await api('PUT', '/v1/policy/console_access/webhook/post_execution', [
        {
          connection_config_key: 'crm_hooks',
          direction: 'one_way',
          key: 'close_ticket',
          name: 'Close ticket',
        },
      ]);
      const received = await api('POST', '/v1/privacy-request', [
        { identity: { email: 'max@example.com' }, policy_key: 'console_access', external_id: 'ticket-4712' },
      ]);
      assert.equal(received.failed.length, 0, JSON.stringify(received.failed));
      const denyId = received.succeeded[0].id as string;

      // ticket-4711 is submitted through the console, on the data subject's behalf.
      await navLink(page, 'Privacy requests').click();
      await page.getByText("Submit a request on a data subject's behalf").click();
      const submitForm = page.getByRole('form', { name: 'Submit a privacy request' });
      await submitForm.getByLabel('Policy').selectOption('console_access');
      await submitForm.getByLabel('Email').fill('jane.doe@example.com');
      await submitForm.getByLabel('External id (optional)').fill('ticket-4711');
      await submitForm.getByRole('button', { name: 'Submit request' }).click();
      await submitForm.getByRole('status').filter({ hasText: 'received' }).waitFor();
      const listed = (await api('GET', '/v1/privacy-request?external_id=ticket-4711')) as {
        items: { id: string; identity: { email?: string } }[];
      };
      assert.equal(listed.items.length, 1);
      assert.equal(listed.items[0]?.identity.email, 'jane.doe@example.com');
      const approveId = listed.items[0]?.id as string;
      const status = async (id: string) =>
        ((await api('GET', `/v1/privacy-request/${id}`)) as { status: string }).status;
      await until(
        () => status(approveId),
        (value) => value === 'pending',
        'the request waits for approval',
      );

      await page.getByRole('button', { name: 'Refresh' }).click();
      const row = page.locator(`tr[data-request-id="${approveId}"]`);
      await row.getByText('pending').waitFor();
      assert.equal(await row.getByRole('cell').nth(3).textContent(), 'j***@example.com');
      await screenshot(page, 'requests');

      const denyRow = page.locator(`tr[data-request-id="${denyId}"]`);
      await denyRow.getByRole('button', { name: `Deny ${denyId}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Deny request' });
      await dialog.getByLabel('Reason').fill('Duplicate of ticket-4711');
      await dialog.getByRole('button', { name: 'Deny', exact: true }).click();
      await until(
        () => status(denyId),
        (value) => value === 'denied',
        'the denial',
      );

      await row.getByRole('button', { name: `Approve ${approveId}` }).click();
      await row.getByRole('link', { name: 'ticket-4711' }).click();
      await page.getByRole('heading', { name: 'Privacy request ticket-4711' }).waitFor();
      await page.locator('.facts .badge', { hasText: 'complete' }).waitFor({ timeout: 20_000 });
      assert.equal(await status(approveId), 'complete');
      const timeline = page.getByRole('list', { name: 'Timeline' });
      await timeline.getByText('HTTP 200').first().waitFor();
      assert.deepEqual(
        receiver.calls.map((call) => call.body.callback_type),
        ['pre', 'post'],
        'both webhooks were called, in order',
      );
      const timelineText = (await timeline.textContent()) ?? '';
      assert.match(timelineText, /open_ticket/);
      assert.match(timelineText, /close_ticket/);
      // The entity created with the API key in an earlier test is the one the access rule finds.
      assert.match(timelineText, /access: 1 entity, 1 attribute, 0 files/);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download the access package (JSON)' }).click(),
      ]);
      const downloaded = JSON.parse(await readFile((await download.path()) as string, 'utf8'));
      assert.deepEqual(downloaded, await api('GET', `/v1/privacy-request/${approveId}/access-results`));
      const file = await screenshot(page, 'request-timeline');
      if (process.env.LETHE_UPDATE_SCREENSHOTS) {
        await mkdir(path.dirname(DOCS_SCREENSHOT), { recursive: true });
        await copyFile(file, DOCS_SCREENSHOT);
      }
    } finally {
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });

  test('a paused request shows its resume window; a request in error is retried from its page', async () => {
    const receiver = await startReceiver();
    try {
      for (const [key, hookPath] of [
        ['halt_hooks', '/halt'],
        ['flaky_hooks', '/flaky'],
      ] as const) {
        await api('PATCH', '/v1/connection', [{ name: key, key, connection_type: 'https', access: 'read' }]);
        await api('PUT', `/v1/connection/${key}`, { url: `${receiver.url}${hookPath}` });
        await api('PATCH', '/v1/dsr/policy', [{ name: `Console ${key}`, key: `console_${key}` }]);
        await api('PUT', `/v1/policy/console_${key}/webhook/pre_execution`, [
          { connection_config_key: key, direction: 'two_way', key: 'check', name: 'Check' },
        ]);
      }
      const received = await api('POST', '/v1/privacy-request', [
        {
          identity: { email: 'paused@example.com' },
          policy_key: 'console_halt_hooks',
          external_id: 'ticket-halt',
        },
        {
          identity: { email: 'flaky@example.com' },
          policy_key: 'console_flaky_hooks',
          external_id: 'ticket-flaky',
        },
      ]);
      const [pausedId, flakyId] = received.succeeded.map((request: { id: string }) => request.id) as [
        string,
        string,
      ];
      await api('PATCH', '/v1/privacy-request/administrate/approve', { request_ids: [pausedId, flakyId] });
      const status = async (id: string) =>
        ((await api('GET', `/v1/privacy-request/${id}`)) as { status: string }).status;
      await until(
        () => status(pausedId),
        (value) => value === 'paused',
        'the halt pauses the request',
      );
      await until(
        () => status(flakyId),
        (value) => value === 'error',
        'the failing webhook errs the request',
      );

      await navLink(page, 'Privacy requests').click();
      await page.locator(`tr[data-request-id="${pausedId}"]`).getByRole('link').click();
      const notice = page.getByRole('status').filter({ hasText: 'Paused by a two-way webhook' });
      await notice.waitFor();
      // The service under test waits LETHE_PRIVACY_REQUEST_DELAY_TIMEOUT's default, one hour.
      assert.match((await notice.textContent()) ?? '', /Expires in (59 min|1 h 00 min)/);
      await screenshot(page, 'request-paused');

      await page.getByRole('link', { name: 'All requests' }).click();
      await page.locator(`tr[data-request-id="${flakyId}"]`).getByRole('link').click();
      const timeline = page.getByRole('list', { name: 'Timeline' });
      await timeline.getByText('HTTP 500').first().waitFor();
      await page.getByRole('button', { name: `Retry ${flakyId}` }).click();
      await page.locator('.facts .badge', { hasText: 'complete' }).waitFor({ timeout: 20_000 });
      assert.equal(await status(flakyId), 'complete');
      await timeline.getByText('HTTP 200').first().waitFor();
    } finally {
      await new Promise((resolve) => receiver.server.close(resolve));
    }
  });

  test('every page passes the WCAG 2.1 A and AA checks of axe-core', async () => {
    const requestId = ((await api('GET', '/v1/privacy-request?size=1')) as { items: { id: string }[] })
      .items[0]?.id;
    const pages = [
      '/console/requests',
      `/console/requests/${requestId}`,
      '/console/policies',
      '/console/policies/default_access_policy',
      '/console/connections',
      '/console/connections/console_fixture',
      '/console/datastores',
      '/console/audit-log',
      '/console/users',
      '/console/clients',
    ];
    const fresh = await browser.newContext();
    try {
      const checked = await fresh.newPage();
      watchForPageProblems(checked, pageProblems);
      const found: string[] = [];
      await checked.goto(`${service.url}/console`);
      await checked.getByRole('button', { name: 'Sign in' }).waitFor();
      for (const violation of await accessibilityViolations(checked))
        found.push(`sign-in: ${violation.id} (${violation.impact}) ${violation.help}`);
      await signIn(checked, service);
      for (const target of pages) {
        // Client-side navigation keeps the in-memory session (a full load would sign out).
        await checked.evaluate((url) => {
          history.pushState(null, '', url);
          dispatchEvent(new PopStateEvent('popstate'));
        }, target);
        await checked.getByRole('heading', { level: 1 }).waitFor();
        await checked.waitForFunction(() => !document.querySelector('.loading'));
        for (const violation of await accessibilityViolations(checked))
          found.push(
            `${target}: ${violation.id} (${violation.impact}) ${violation.help} at ${violation.targets.join(', ')}`,
          );
      }
      assert.deepEqual(found, []);
    } finally {
      await fresh.close();
    }
  });

  test('at phone width every page fits the screen', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    try {
      const small = await phone.newPage();
      watchForPageProblems(small, pageProblems);
      await signIn(small, service);
      for (const [link, heading] of [
        ['Privacy requests', 'Privacy requests'],
        ['Policies', 'Policies'],
        ['Connections', 'Connections'],
        ['Datastores & keys', 'Datastores and API keys'],
        ['Audit log', 'Audit log'],
      ] as const) {
        await navLink(small, link).click();
        await small.getByRole('heading', { level: 1, name: heading }).waitFor();
        await small.waitForFunction(() => !document.querySelector('.loading'));
        const width = await small.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= 390, `${heading} is ${width} px wide at a 390 px viewport`);
      }
      await navLink(small, 'Privacy requests').click();
      await small.getByRole('heading', { level: 1, name: 'Privacy requests' }).waitFor();
      await screenshot(small, 'phone-requests');
    } finally {
      await phone.close();
    }
  });

  test('an expired session returns to sign-in with a message', async () => {
    const expiring = await browser.newContext();
    try {
      const other = await expiring.newPage();
      watchForPageProblems(other, pageProblems);
      await other.clock.install();
      await signIn(other, service);
      await other.clock.fastForward('01:00:05');
      await other.getByText('Your session has expired. Sign in again.').waitFor();
      await other.getByRole('button', { name: 'Sign in' }).waitFor();
    } finally {
      await expiring.close();
    }
  });

  test('no page threw a script error or had anything blocked by its CSP', () => {
    assert.deepEqual(pageProblems, []);
  });
});
