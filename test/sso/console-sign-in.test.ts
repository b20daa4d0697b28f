// The console's sign-in page in a real Chromium against a real Lethe and a real OpenID provider: the page
// offers "Sign in with <provider>", the browser goes through the provider and back, and the console trades
// the one-time code for the session; the Users page then shows the operator's provider and groups, and the
// roles editor defines a custom role. Nothing the page does is blocked by its CSP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startOpenIdProvider, type OpenIdProvider } from '../helpers/openid-provider.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ensureConsoleBuilt, launchBrowser, screenshot, watchForPageProblems } from '../console/browser.ts';

const CLIENT_SECRET = 'a-client-secret-of-some-length-0123456789';

describe('signing in to the console through the identity provider', () => {
  let provider: OpenIdProvider;
  let service: TestService;
  let browser: Browser;
  let page: Page;
  const pageProblems: string[] = [];

  before(async () => {
    ensureConsoleBuilt();
    provider = await startOpenIdProvider();
    service = await startTestService({
      oidc: {
        issuer: provider.issuer,
        clientId: 'lethe',
        clientSecret: CLIENT_SECRET,
        redirectUrl: undefined,
        rolesClaim: 'groups',
        roleMap: { 'lethe-admins': ['owner'] },
        name: 'Test IdP',
        scopes: 'openid email profile groups',
        clockSkewSeconds: 0,
      },
    });
    provider.register({
      clientId: 'lethe',
      clientSecret: CLIENT_SECRET,
      redirectUri: `${service.url}/v1/oidc/callback`,
    });
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    watchForPageProblems(page, pageProblems);
  });
  after(async () => {
    await browser?.close();
    await service?.stop();
    await provider?.close();
  });

  test('signs in with the provider and shows the operator’s provider and groups; edits a role', async () => {
    provider.signInAs({
      sub: 'idp-ada',
      preferred_username: 'ada.admin',
      email: 'ada@example.com',
      groups: ['lethe-admins', 'engineering'],
    });
    await page.goto(`${service.url}/console`);
    const button = page.getByRole('link', { name: 'Sign in with Test IdP' });
    await button.waitFor();
    await screenshot(page, 'sso-sign-in');
    await button.click();
    await page.getByRole('navigation', { name: 'Sections' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the one-time code left the address');

    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Users', exact: true })
      .click();
    const row = page.getByRole('row', { name: /ada\.admin/ });
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, /identity provider/);
    assert.match(text, /lethe-admins, engineering/);
    assert.match(text, /owner/);

    const form = page.getByRole('form', { name: 'Define a role' });
    await form.getByLabel('Role name').fill('reviewer');
    await form.getByLabel('privacy-request:read').check();
    await form.getByLabel('privacy-request:review').check();
    await form.getByRole('button', { name: 'Save role' }).click();
    await page.getByText('Saved the role reviewer').waitFor();
    const roles = await service.call('GET', '/v1/role', { token: await service.rootToken() });
    const reviewer = roles.body.find((role: { name: string }) => role.name === 'reviewer');
    assert.deepEqual(reviewer?.scopes, ['privacy-request:read', 'privacy-request:review']);
    await screenshot(page, 'sso-users');
    assert.deepEqual(pageProblems, []);
  });
});
