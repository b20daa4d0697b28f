// A new user's first minutes in the console, in a real Chromium against a real Lethe (issue 24): the
// sign-in opens on the root client while no operator account exists, a reload keeps the session, each
// role lands on a page it can read, a refused connection URL names both variables and keeps the form.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import {
  ensureConsoleBuilt,
  launchBrowser,
  signIn,
  signInAsOperator,
  watchForPageProblems,
} from './browser.ts';

const PASSWORD = 'a password for the first minutes';

describe("the console's first minutes", () => {
  let service: TestService;
  let browser: Browser;
  let token: string;
  const pageProblems: string[] = [];

  const api = async (method: string, urlPath: string, json?: unknown) => {
    const answer = await service.call(method, urlPath, { token, json });
    assert.ok(answer.status < 300, `${method} ${urlPath}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    watchForPageProblems(page, pageProblems);
    return page;
  }

  before(async () => {
    ensureConsoleBuilt();
    const [started, launched] = await Promise.allSettled([startTestService(), launchBrowser()]);
    if (started.status === 'fulfilled') service = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    token = await service.rootToken();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  test('on a fresh start (no operator account) the sign-in opens on the root client, its hint shown', async () => {
    const page = await newPage();
    await page.goto(`${service.url}/console`);
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByLabel('A management client').isChecked(), true);
    assert.equal(await page.getByLabel('An operator account').isChecked(), false);
    assert.match((await page.getByTestId('first-start').textContent()) ?? '', /\.lethe\/root-client\.json/);
    assert.ok(await page.getByLabel('Client id').isVisible());
    await page.context().close();
  });

  test('each role lands on a page it can read, even from a page the last sign-in left open', async () => {
    for (const [username, roles] of [
      ['ann.approver', ['approver']],
      ['olga.owner', ['owner']],
    ] as const) {
      await api('POST', '/v1/user', { username, password: PASSWORD, roles });
    }
    // Once an account exists, the sign-in opens on it.
    const page = await newPage();
    await page.goto(`${service.url}/console`);
    await page.getByRole('form', { name: 'Sign in' }).waitFor();
    assert.equal(await page.getByLabel('An operator account').isChecked(), true);
    assert.equal(await page.getByTestId('first-start').count(), 0);

    // The owner leaves the Users page open and signs out; the approver signs in on the same tab.
    await signInAsOperator(page, service, 'olga.owner', PASSWORD);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    assert.equal(new URL(page.url()).pathname, '/console/users');
    await page.getByLabel('Username').fill('ann.approver');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Privacy requests' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/requests');

    // A client that may only manage accounts lands on Users.
    const accounts = await api('POST', '/v1/oauth/client', {
      name: 'accounts only',
      scopes: ['user:read', 'user:*'],
    });
    await signIn(page, service, '/console', { id: accounts.client_id, secret: accounts.client_secret });
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/console/users');
    await page.context().close();
  });

  test('a reload keeps the session and the page', async () => {
    const page = await newPage();
    await signInAsOperator(page, service, 'olga.owner', PASSWORD);
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    assert.equal(await page.locator('.who .hint').textContent(), 'olga.owner');
    assert.equal(await page.getByRole('form', { name: 'Sign in' }).count(), 0);
    await page.context().close();
  });

  test('a refused http URL names both variables and the form keeps what was typed', async () => {
    await api('PATCH', '/v1/connection', [
      { key: 'local_receiver', name: 'Local receiver', connection_type: 'https', access: 'read' },
    ]);
    const page = await newPage();
    await signIn(page, service, '/console/connections/local_receiver');
    const secrets = page.getByRole('form', { name: 'Connection secrets' });
    await secrets.getByLabel('Callback URL').fill('http://127.0.0.1:9/hook');
    await secrets.getByLabel('Authorization header value').fill('Bearer typed-once');
    await secrets.getByRole('button', { name: 'Save secrets' }).click();
    const alert = secrets.getByRole('alert');
    await alert.waitFor();
    const text = (await alert.textContent()) ?? '';
    assert.match(text, /LETHE_ALLOW_INSECURE_WEBHOOKS/);
    assert.match(text, /LETHE_WEBHOOK_ALLOWED_HOSTS/);
    assert.equal(await secrets.getByLabel('Callback URL').inputValue(), 'http://127.0.0.1:9/hook');
    assert.equal(await secrets.getByLabel('Authorization header value').inputValue(), 'Bearer typed-once');
    await page.context().close();
  });

  test('no page threw a script error or had anything blocked by its CSP', () => {
    assert.deepEqual(pageProblems, []);
  });
});
