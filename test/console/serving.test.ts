// How the service serves the console: the built page and its assets under a strict CSP, client routes
// falling back to index.html, a missing asset as 404, the session endpoint behind a token, and a clear
// 503 when the console has not been built.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { CONSOLE_CSP, consoleRoutes } from '../../src/console/routes.ts';
import { authorizePlugin } from '../../src/http/authorize.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ensureConsoleBuilt } from './browser.ts';

describe('serving the console', () => {
  let service: TestService;

  before(async () => {
    ensureConsoleBuilt();
    service = await startTestService({ privacyRequestDelayTimeoutSeconds: 900 });
  });
  after(async () => service?.stop());

  test('/console answers the page under a strict CSP, with only external scripts', async () => {
    for (const urlPath of [
      '/console',
      '/console/',
      '/console/requests/pri_0f3c',
      '/console/policies/x?y=1',
    ]) {
      const answer = await service.call('GET', urlPath);
      assert.equal(answer.status, 200, urlPath);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(answer.headers.get('content-security-policy'), CONSOLE_CSP);
      assert.equal(answer.headers.get('cache-control'), 'no-cache');
      assert.match(answer.text, /<div id="root"><\/div>/);
    }
    const page = await service.call('GET', '/console');
    const scripts = [...page.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attributes, body] of scripts) {
      assert.match(attributes ?? '', /\ssrc="\/console\/assets\/[^"]+\.js"/);
      assert.equal(body, '', 'no inline script');
    }
    assert.doesNotMatch(page.text, /<style\b|\sstyle="|\son\w+="/, 'no inline style or handler');
    assert.match(CONSOLE_CSP, /script-src 'self'(;|$)/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/);
  });

  test('assets are served with a long cache; a missing asset is 404, not the page', async () => {
    const page = await service.call('GET', '/console');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    assert.ok(script);
    const asset = await service.call('GET', script);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(asset.headers.get('content-security-policy'), CONSOLE_CSP);

    const missing = await service.call('GET', '/console/assets/index-missing.js');
    assert.equal(missing.status, 404);
    assert.doesNotMatch(missing.text, /<div id="root">/);
  });

  test('/console/session needs a token and answers the client or operator and the settings the console shows', async () => {
    const anonymous = await service.call('GET', '/console/session');
    assert.equal(anonymous.status, 401);
    assert.equal(typeof anonymous.body.detail, 'string');
    const garbage = await service.call('GET', '/console/session', { token: 'not-a-token' });
    assert.equal(garbage.status, 401);

    const answer = await service.call('GET', '/console/session', { token: await service.rootToken() });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('cache-control'), 'no-store');
    assert.equal(answer.body.client_id, 'root-test-client');
    assert.ok(answer.body.scopes.includes('privacy-request:review'));
    assert.equal(answer.body.privacy_request_delay_timeout_seconds, 900);
    assert.equal(answer.body.require_manual_approval, false);
    assert.equal(answer.body.username, null, 'a client is no operator');
    assert.deepEqual(Object.keys(answer.body).sort(), [
      'client_id',
      'privacy_request_delay_timeout_seconds',
      'require_manual_approval',
      'scopes',
      'username',
    ]);
  });

  test('/console/sign-in-options says, without a token, whether any operator account exists and nothing more', async () => {
    const before = await service.call('GET', '/console/sign-in-options');
    assert.equal(before.status, 200);
    assert.equal(before.headers.get('cache-control'), 'no-store');
    assert.deepEqual(before.body, { operator_accounts: false });

    const token = await service.rootToken();
    const created = await service.call('POST', '/v1/user', {
      token,
      json: { username: 'first.owner', password: 'a long enough password', roles: ['owner'] },
    });
    assert.equal(created.status, 201, created.text);
    const after = await service.call('GET', '/console/sign-in-options');
    assert.deepEqual(after.body, { operator_accounts: true });
    assert.doesNotMatch(after.text, /first\.owner/);
  });

  test('without a build, /console answers 503 with the command that builds it', async () => {
    const emptyDist = await mkdtemp(path.join(tmpdir(), 'lethe-console-unbuilt-'));
    const app = Fastify();
    try {
      await app.register(authorizePlugin, { auth: service.services.auth });
      await app.register(consoleRoutes(service.services, emptyDist));
      for (const url of ['/console', '/console/requests']) {
        const answer = await app.inject({ method: 'GET', url });
        assert.equal(answer.statusCode, 503);
        assert.match(answer.headers['content-type'] as string, /^text\/plain/);
        assert.match(answer.body, /not built\. Run `npm run build:console`/);
        assert.equal(answer.headers['content-security-policy'], CONSOLE_CSP);
      }
    } finally {
      await app.close();
      await rm(emptyDist, { recursive: true, force: true });
    }
  });
});
