// OpenID Connect sign-in against a real provider (oidc-provider) on 127.0.0.1, driven over HTTP with
// cookies: the first sign-in makes the account with the roles its groups map to, the next one updates
// them, no mapped group is refused with a page, and a wrong state, a replayed callback or code, a sign-in
// from another browser and an expired ID token are refused with a 4xx that makes no account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { OidcConfig } from '../../src/config.ts';
import { type OpenIdProvider, startOpenIdProvider, type TestAccount } from '../helpers/openid-provider.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { TestBrowser } from './browser.ts';

const CLIENT_SECRET = 'a-client-secret-of-some-length-0123456789';

function oidcConfig(issuer: string, clientId: string, overrides: Partial<OidcConfig> = {}): OidcConfig {
  return {
    issuer,
    clientId,
    clientSecret: CLIENT_SECRET,
    redirectUrl: undefined,
    rolesClaim: 'groups',
    roleMap: { 'privacy-team': ['approver'], 'lethe-admins': 'owner'.split(' ') },
    name: 'Test IdP',
    scopes: 'openid email profile groups',
    clockSkewSeconds: 0,
    ...overrides,
  };
}

describe('OpenID Connect sign-in', () => {
  let provider: OpenIdProvider;
  let service: TestService;
  let root: string;
  before(async () => {
    provider = await startOpenIdProvider();
    service = await startTestService({ oidc: oidcConfig(provider.issuer, 'lethe') });
    provider.register({
      clientId: 'lethe',
      clientSecret: CLIENT_SECRET,
      redirectUri: `${service.url}/v1/oidc/callback`,
    });
    root = await service.rootToken();
  });
  after(async () => {
    await service.stop();
    await provider.close();
  });

  const isCallback = (lethe: TestService) => (url: URL) =>
    url.toString().startsWith(`${lethe.url}/v1/oidc/callback`);

  /** Starts a sign-in in `browser` as `account` and stops at Lethe's callback (not yet called). */
  async function toCallback(browser: TestBrowser, account: TestAccount, lethe = service): Promise<URL> {
    provider.signInAs(account);
    return browser.followUntil(`${lethe.url}/v1/oidc/login`, isCallback(lethe));
  }

  /** Calls the callback; the console's hand-off code when it redirects there. */
  async function callBack(browser: TestBrowser, callback: URL) {
    const answer = await browser.request(callback.toString());
    const text = await answer.text();
    const location = answer.headers.get('location') ?? '';
    return { status: answer.status, text, code: /\/console\/#oidc=([\w-]+)$/.exec(location)?.[1] };
  }

  async function signIn(account: TestAccount, lethe = service) {
    const browser = new TestBrowser();
    const landed = await callBack(browser, await toCallback(browser, account, lethe));
    assert.equal(landed.status, 302, landed.text);
    assert.ok(landed.code, 'the callback hands the console a one-time code');
    const session = await lethe.call('POST', '/v1/oidc/session', { json: { code: landed.code } });
    assert.equal(session.status, 200, session.text);
    return { ...session.body, code: landed.code as string };
  }

  const operators = async () =>
    (await service.call('GET', '/v1/user', { token: root })).body as {
      username: string;
      roles: string[];
      provider: string | null;
      groups: string[];
    }[];

  it('tells the console what to offer', async () => {
    const options = await service.call('GET', '/v1/oidc');
    assert.equal(options.status, 200, options.text);
    assert.deepEqual(options.body, {
      password_login: true,
      oidc: { name: 'Test IdP', login_url: '/v1/oidc/login' },
    });
  });

  it('makes the account at the first sign-in with the roles its groups map to, and audits it', async () => {
    const session = await signIn({
      sub: 'okta-00u1',
      preferred_username: 'pat.privacy',
      email: 'pat@example.com',
      groups: ['privacy-team', 'everyone'],
    });
    assert.deepEqual(session.user_data, { username: 'pat.privacy', roles: ['approver'] });
    const token = session.token_data.access_token as string;
    assert.equal((await service.call('GET', '/v1/privacy-request', { token })).status, 200);
    assert.equal(
      (await service.call('GET', '/v1/user', { token })).status,
      403,
      'an approver manages no accounts',
    );
    const pat = (await operators()).find((operator) => operator.username === 'pat.privacy');
    assert.equal(pat?.provider, 'oidc');
    assert.deepEqual(pat?.groups, ['privacy-team', 'everyone']);
    const audit = await service.call('GET', '/v1/audit-log?actor=oidc', { token: root });
    assert.ok(
      audit.body.items.some((entry: { action: string }) => entry.action === 'operator.create'),
      audit.text,
    );
    const logins = await service.call('GET', '/v1/audit-log?action=operator.login', { token: root });
    assert.ok(
      logins.body.items.some((entry: { details: { method?: string } }) => entry.details.method === 'oidc'),
      logins.text,
    );
    const again = await service.call('POST', '/v1/oidc/session', { json: { code: session.code } });
    assert.equal(again.status, 401, 'the hand-off code is spent');
  });

  it('updates the roles at every sign-in', async () => {
    const session = await signIn({
      sub: 'okta-00u1',
      preferred_username: 'pat.privacy',
      groups: ['lethe-admins'],
    });
    assert.deepEqual(session.user_data.roles, ['owner']);
    const pat = (await operators()).find((operator) => operator.username === 'pat.privacy');
    assert.deepEqual(pat?.roles, ['owner']);
    assert.deepEqual(pat?.groups, ['lethe-admins']);
  });

  it('refuses with a page when no group maps: no account made, and an existing one loses its sessions', async () => {
    const browser = new TestBrowser();
    const refused = await callBack(
      browser,
      await toCallback(browser, { sub: 'okta-00u2', preferred_username: 'sam.sales', groups: ['sales'] }),
    );
    assert.equal(refused.status, 403, refused.text);
    assert.match(
      refused.text,
      /None of your groups at the identity provider gives a role in Lethe \(your groups: sales\)/,
    );
    assert.equal(
      (await operators()).some((operator) => operator.username === 'sam.sales'),
      false,
    );

    const before = await signIn({
      sub: 'okta-00u1',
      preferred_username: 'pat.privacy',
      groups: ['privacy-team'],
    });
    const token = before.token_data.access_token as string;
    const second = new TestBrowser();
    const moved = await callBack(
      second,
      await toCallback(second, { sub: 'okta-00u1', preferred_username: 'pat.privacy', groups: ['sales'] }),
    );
    assert.equal(moved.status, 403, moved.text);
    assert.equal(
      (await service.call('GET', '/v1/privacy-request', { token })).status,
      401,
      'the session ended',
    );
    const pat = (await operators()).find((operator) => operator.username === 'pat.privacy');
    assert.deepEqual(pat?.roles, []);
  });

  it('refuses a wrong state, a replayed callback, a replayed code and another browser, making no account', async () => {
    const account = { sub: 'okta-00u3', preferred_username: 'robin.review', groups: ['privacy-team'] };
    const browser = new TestBrowser();
    const callback = await toCallback(browser, account);

    const wrongState = new URL(callback);
    wrongState.searchParams.set('state', 'not-the-state-this-browser-started');
    const forged = await callBack(browser, wrongState);
    assert.equal(forged.status, 400, forged.text);
    assert.match(forged.text, /was not started in this browser, was already completed, or has expired/);

    const stranger = new TestBrowser();
    const elsewhere = await callBack(stranger, callback);
    assert.equal(elsewhere.status, 400, 'a callback carried to another browser (login CSRF) is refused');

    // The stranger's try spent the state: the right browser cannot replay it either.
    const replayed = await callBack(browser, callback);
    assert.equal(replayed.status, 400, replayed.text);

    // A fresh sign-in's state with the earlier code: the provider refuses the spent code.
    const fresh = new TestBrowser();
    const next = await toCallback(fresh, account);
    const withOldCode = new URL(next);
    withOldCode.searchParams.set('code', callback.searchParams.get('code') as string);
    const oldCode = await callBack(fresh, withOldCode);
    assert.equal(oldCode.status, 400, oldCode.text);
    assert.match(oldCode.text, /already used or has expired|refused the sign-in|could not be verified/);
    assert.equal(
      (await operators()).some((operator) => operator.username === 'robin.review'),
      false,
    );

    const missing = await callBack(new TestBrowser(), new URL(`${service.url}/v1/oidc/callback`));
    assert.equal(missing.status, 400);
    const providerError = await callBack(
      new TestBrowser(),
      new URL(`${service.url}/v1/oidc/callback?error=access_denied&state=x`),
    );
    assert.equal(providerError.status, 400);
    assert.match(providerError.text, /did not sign you in \(access_denied\)/);
  });

  it('refuses an expired ID token, and with LETHE_PASSWORD_LOGIN=false leaves only the provider and the root client', async () => {
    // This Lethe's clock is two hours ahead: the provider's ID tokens (an hour) have expired when checked.
    const late = await startTestService({
      oidc: oidcConfig(provider.issuer, 'lethe-late', { clockSkewSeconds: 7200 }),
      passwordLogin: false,
    });
    try {
      provider.register({
        clientId: 'lethe-late',
        clientSecret: CLIENT_SECRET,
        redirectUri: `${late.url}/v1/oidc/callback`,
      });
      const browser = new TestBrowser();
      const expired = await callBack(
        browser,
        await toCallback(
          browser,
          { sub: 'okta-00u4', preferred_username: 'lee.late', groups: ['privacy-team'] },
          late,
        ),
      );
      assert.equal(expired.status, 400, expired.text);
      assert.match(expired.text, /ID token has expired/);
      const rootToken = await late.rootToken();
      const users = await late.call('GET', '/v1/user', { token: rootToken });
      assert.equal(users.status, 200, 'the root client still signs in');
      assert.deepEqual(users.body, [], 'no account was made');

      const created = await late.call('POST', '/v1/user', {
        token: rootToken,
        json: { username: 'paula.password', password: 'correct horse battery', roles: ['viewer'] },
      });
      assert.equal(created.status, 201, created.text);
      const login = await late.call('POST', '/v1/login', {
        json: { username: 'paula.password', password: 'correct horse battery' },
      });
      assert.equal(login.status, 403, login.text);
      assert.match(login.body.detail, /Password sign-in is turned off/);
      assert.deepEqual((await late.call('GET', '/v1/oidc')).body.password_login, false);
    } finally {
      await late.stop();
    }
  });
});
