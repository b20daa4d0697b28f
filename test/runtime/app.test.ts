// The app factory's surface (src/runtime/app.ts) and the configuration it is built from.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.privacyRequestDelayTimeoutSeconds, 3600);
    assert.equal(config.defaultTtlSeconds, 604800);
    assert.equal(config.webhookTimeoutMs, 10000);
    assert.equal(config.requireManualApproval, false);
    assert.equal(config.allowInsecureWebhooks, false);
    assert.equal(config.databaseUrl, undefined);
  });

  it('stops on a bad value with a sentence naming the variable', () => {
    const cases: Record<string, string>[] = [
      { PORT: 'eighty' },
      { LETHE_WEBHOOK_TIMEOUT_MS: '-5' },
      { LETHE_REQUIRE_MANUAL_APPROVAL: 'maybe' },
      { DATABASE_URL: 'mysql://localhost/x' },
      { LETHE_ENCRYPTION_KEY: 'too-short' },
      { LETHE_ROOT_CLIENT_ID: 'only-the-id' },
    ];
    for (const env of cases) {
      const [name] = Object.keys(env) as [string];
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.ok(error.message.includes(name), error.message);
          return true;
        },
      );
    }
  });

  it('parses lists and switches', () => {
    const config = loadConfig({
      LETHE_WEBHOOK_ALLOWED_HOSTS: ' Example.test, 127.0.0.1 ,',
      LETHE_ALLOW_INSECURE_WEBHOOKS: 'true',
      LETHE_ENCRYPTION_KEY: 'ab'.repeat(32),
    });
    assert.deepEqual(config.webhookAllowedHosts, ['example.test', '127.0.0.1']);
    assert.equal(config.allowInsecureWebhooks, true);
    assert.equal(config.encryptionKey?.length, 32);
  });
});

describe('service surface', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it('serves an OpenAPI 3 document generated from the route schemas, without alias paths', async () => {
    const answer = await service.call('GET', '/openapi.json');
    assert.equal(answer.status, 200);
    assert.match(answer.body.openapi, /^3\./);
    assert.ok(answer.body.paths['/v1/oauth/token']);
    assert.equal(answer.body.paths['/api/v1/oauth/token'], undefined);
    assert.equal(answer.body.paths['/oauth/token'], undefined);
    const docs = await service.call('GET', '/docs/');
    assert.equal(docs.status, 200);
  });

  it('answers unknown routes with 404 and a detail, and tags every answer with X-Request-Id', async () => {
    const answer = await service.call('GET', '/v1/no-such-thing');
    assert.equal(answer.status, 404);
    assert.match(answer.body.detail, /No route GET \/v1\/no-such-thing/);
    assert.match(answer.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const answer = await service.call('POST', '/v1/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y'.repeat(1024 * 1024) },
    });
    assert.equal(answer.status, 413);
  });
});
