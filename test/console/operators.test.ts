// The console's operator side in a real Chromium against a real Lethe: an owner signs in with a username
// and password, creates a user and a client (whose secret is shown once), deletes them; a viewer sees the
// same pages with every form disabled; the audit log filters by actor, action family and time. Each page
// passes axe's WCAG 2.1 AA rules. The users page is the README's screenshot (docs/images/users.png), copied
// there only under LETHE_UPDATE_SCREENSHOTS=1 (a test run writes nothing tracked: test-artifacts/ only).
import assert from 'node:assert/strict';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  accessibilityViolations,
  ensureConsoleBuilt,
  launchBrowser,
  screenshot,
  signInAsOperator,
  watchForPageProblems,
} from './browser.ts';

const DOCS_SCREENSHOT = path.resolve(import.meta.dirname, '../../docs/images/users.png');
const OWNER_PASSWORD = 'owner password for the console';
const VIEWER_PASSWORD = 'viewer password for the console';

function navLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name, exact: true });
}

async function expectNoViolations(page: Page, where: string) {
  const violations = await accessibilityViolations(page);
  assert.deepEqual(
    violations.map((violation) => `${where}: ${violation.id} (${violation.impact}) ${violation.help}`),
    [],
  );
}

describe('operators in the console', () => {
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([startTestService(), launchBrowser()]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    const token = await service.rootToken();
    for (const [username, password, roles] of [
      ['dana.owner', OWNER_PASSWORD, ['owner']],
      ['vic.viewer', VIEWER_PASSWORD, ['viewer']],
    ] as const) {
      const created = await service.call('POST', '/v1/user', { token, json: { username, password, roles } });
      assert.equal(created.status, 201, created.text);
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    watchForPageProblems(page, pageProblems);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('the sign-in form offers an operator account first and refuses a wrong password', async () => {
    await page.goto(`${service.url}/console`);
    assert.ok(await page.getByLabel('An operator account').isChecked());
    await expectNoViolations(page, 'sign-in');
    await page.getByLabel('Username').fill('dana.owner');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.getByRole('alert').textContent(), 'The username or password is not valid.');
    assert.equal(await page.getByLabel('Password').inputValue(), '', 'the form forgets the password');
  });

  test('an owner creates and deletes a user; the header names them', async () => {
    await signInAsOperator(page, service, 'dana.owner', OWNER_PASSWORD);
    assert.equal(await page.locator('.who .hint').textContent(), 'dana.owner');
    await navLink(page, 'Users').click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a user' });
    await form.getByLabel('Username').fill('Ada.Approver');
    await form.getByLabel('Password').fill('short');
    await form.getByRole('checkbox', { name: /approver/ }).check();
    await form.getByRole('checkbox', { name: /viewer/ }).uncheck();
    await form.getByLabel('Password').fill('approver password 1');
    await form.getByLabel('Email (optional)').fill('ada@example.com');
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.getByText('Created ada.approver. They can sign in now.').waitFor();
    const row = page.getByRole('row', { name: /ada\.approver/ });
    assert.match((await row.textContent()) ?? '', /approver.*ada@example\.com.*dana\.owner/);
    const listed = await service.call('GET', '/v1/user', { token: await service.rootToken() });
    assert.deepEqual(
      listed.body.map((user: { username: string; email: string | null }) => [user.username, user.email]),
      [
        ['ada.approver', 'ada@example.com'],
        ['dana.owner', null],
        ['vic.viewer', null],
      ],
    );
    await expectNoViolations(page, 'users');
    const file = await screenshot(page, 'users');
    if (process.env.LETHE_UPDATE_SCREENSHOTS) {
      await mkdir(path.dirname(DOCS_SCREENSHOT), { recursive: true });
      await copyFile(file, DOCS_SCREENSHOT);
    }

    await row.getByRole('button', { name: 'Delete ada.approver' }).click();
    await row.getByRole('button', { name: 'Yes, delete ada.approver' }).click();
    await page.getByText('Deleted ada.approver; their sessions ended at once.').waitFor();
    const login = await service.call('POST', '/v1/login', {
      json: { username: 'ada.approver', password: 'approver password 1' },
    });
    assert.equal(login.status, 401);
  });

  test('an owner creates a client whose secret is shown once and works, then deletes it', async () => {
    await navLink(page, 'Clients').click();
    await page.getByRole('heading', { level: 1, name: 'Clients' }).waitFor();
    const form = page.getByRole('form', { name: 'Create a client' });
    await form.getByLabel('Name').fill('ticketing');
    await form.getByRole('checkbox', { name: 'policy:read' }).check();
    await form.getByRole('button', { name: 'Create client' }).click();
    const secret = (await page.getByTestId('client-secret').textContent()) ?? '';
    const panel = page.getByRole('region', { name: 'New client' });
    const clientId = ((await panel.locator('code').first().textContent()) ?? '').trim();
    assert.match(clientId, /^cli_/);
    const issued = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
      }),
    });
    assert.equal(issued.status, 200, issued.text);
    assert.equal(issued.body.scope, 'policy:read');
    await expectNoViolations(page, 'clients');
    await panel.getByRole('button', { name: 'Done, hide it' }).click();
    assert.equal(await page.getByTestId('client-secret').count(), 0);

    const row = page.getByRole('row', { name: /ticketing/ });
    await row.getByRole('button', { name: 'Delete ticketing' }).click();
    await row.getByRole('button', { name: 'Yes, delete and revoke' }).click();
    await page.getByText(`Deleted ${clientId}; its tokens stopped working at once.`).waitFor();
    const refused = await service.call('GET', '/v1/dsr/policy', { token: issued.body.access_token });
    assert.equal(refused.status, 401);
  });

  test('the audit log filters by actor, action family and time', async () => {
    await navLink(page, 'Audit log').click();
    const filters = page.getByRole('form', { name: 'Filter the audit log' });
    await filters.getByLabel('Actor').fill('user:dana.owner');
    await filters.getByLabel('Action').selectOption('operator');
    await filters.getByRole('button', { name: 'Filter' }).click();
    const actions = page.locator('tbody td[data-label="Action"]');
    await page.waitForFunction(
      () => document.querySelectorAll('tbody td[data-label="Action"]').length === 3,
      undefined,
      { timeout: 15_000 },
    );
    assert.deepEqual(await actions.allTextContents(), [
      'operator.delete',
      'operator.create',
      'operator.login',
    ]);
    await expectNoViolations(page, 'audit log');

    await filters.getByLabel('From').fill('2099-01-01T00:00');
    await filters.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No entry matches these filters.').waitFor();
    await filters.getByRole('button', { name: 'Clear' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length > 2);
  });

  test('a viewer sees the users and clients pages with every form disabled', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const viewer = await context.newPage();
      watchForPageProblems(viewer, pageProblems);
      await signInAsOperator(viewer, service, 'vic.viewer', VIEWER_PASSWORD);
      for (const [link, form, button] of [
        ['Users', 'Create a user', 'Create user'],
        ['Clients', 'Create a client', 'Create client'],
      ] as const) {
        await navLink(viewer, link).click();
        await viewer.getByRole('heading', { level: 1, name: link }).waitFor();
        await viewer.getByText(/that needs the owner role/).waitFor();
        const created = viewer.getByRole('form', { name: form });
        assert.ok(await created.getByRole('button', { name: button }).isDisabled(), `${link}: ${button}`);
        await expectNoViolations(viewer, `${link} as a viewer`);
      }
    } finally {
      await context.close();
    }
    assert.deepEqual(pageProblems, []);
  });

  test("signing out ends the session's token at the server, not only in the page", async () => {
    const tokens = async () =>
      (
        await service.services.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM oauth_access_tokens WHERE username = 'dana.owner'",
        )
      ).rows[0]?.n ?? 0;
    const before = await tokens();
    assert.ok(before >= 1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You signed out.').waitFor();
    for (let tries = 0; tries < 50 && (await tokens()) === before; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await tokens(), before - 1, 'the token was deleted by POST /v1/logout');
    const { rows } = await service.services.db.query<{ actor: string }>(
      "SELECT actor FROM audit_log WHERE action = 'operator.logout'",
    );
    assert.deepEqual(
      rows.map((row) => row.actor),
      ['user:dana.owner'],
    );
    assert.deepEqual(pageProblems, []);
  });
});
