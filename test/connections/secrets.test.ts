import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createConnection } from './support.ts';

const PUBLIC_URL = 'https://93.184.216.34/hooks';

describe('connection secrets never leave the service', () => {
  let service: TestService;
  let token: string;
  const unique = (label: string) => `${label}-${randomBytes(12).toString('hex')}`;
  const authorization = `Bearer ${unique('authorization')}`;
  const firstClientSecret = unique('client-secret');
  const rotatedClientSecret = unique('rotated-secret');
  const refusedValues = [
    unique('refused-authorization'),
    unique('refused-client-secret'),
    unique('unknown-field'),
    unique('url-password'),
  ];

  before(async () => {
    service = await startTestService({}, { captureLogs: true });
    token = await service.rootToken();
  });
  after(() => service.stop());

  it('keeps every secret out of every answer and log line of a full session', async () => {
    const call = (method: string, path: string, json?: unknown) =>
      service.call(method, path, { token, json });
    await createConnection(service, 'secretive');
    const oauth = {
      grant_type: 'client_credentials',
      token_url: 'https://93.184.216.34/token',
      scope: 'hooks',
      client_id: 'lethe',
      client_secret: firstClientSecret,
    };
    const [refusedAuthorization, refusedClientSecret, unknownField, urlPassword] = refusedValues as [
      string,
      string,
      string,
      string,
    ];

    const accepted: [string, string, unknown][] = [
      ['PUT', '/v1/connection/secretive', { url: PUBLIC_URL, authorization }],
      ['GET', '/v1/connection/secretive', undefined],
      ['PUT', '/v1/connection/secretive/oauth', oauth],
      ['PATCH', '/v1/connection/secretive/oauth', { client_secret: rotatedClientSecret }],
      ['GET', '/v1/connection', undefined],
      [
        'PUT',
        '/v1/policy/default_access_policy/webhook/pre_execution',
        [{ connection_config_key: 'secretive', direction: 'two_way', key: 'enrich', name: 'Enrich' }],
      ],
      [
        'PATCH',
        '/v1/policy/default_access_policy/webhook/pre_execution/enrich',
        { name: 'Enrich identities' },
      ],
      ['GET', '/v1/policy/default_access_policy/webhook/pre_execution', undefined],
      ['GET', '/v1/policy/default_access_policy/webhook/pre_execution/enrich', undefined],
      [
        'PUT',
        '/v1/pre_approval_webhook',
        [{ connection_config_key: 'secretive', key: 'gate', name: 'Gate' }],
      ],
      ['GET', '/v1/pre_approval_webhook', undefined],
      ['GET', '/v1/dsr/policy/default_access_policy', undefined],
    ];
    for (const [method, path, json] of accepted) {
      const answer = await call(method, path, json);
      assert.equal(answer.status, 200, `${method} ${path}: ${answer.text}`);
    }

    const refused: [string, string, unknown, number][] = [
      ['PUT', '/v1/connection/secretive', { url: PUBLIC_URL, authorization: refusedAuthorization }, 409],
      [
        'PUT',
        '/v1/connection/secretive',
        { url: 'https://127.0.0.1/', authorization: refusedAuthorization },
        422,
      ],
      ['PUT', '/v1/connection/secretive', { url: PUBLIC_URL, authorization: 42, note: unknownField }, 422],
      ['PUT', '/v1/connection/secretive', { url: `https://user:${urlPassword}@93.184.216.34/` }, 422],
      ['PUT', '/v1/connection/nobody', { url: PUBLIC_URL, authorization: refusedAuthorization }, 404],
      [
        'PUT',
        '/v1/connection/secretive/oauth',
        { ...oauth, client_secret: refusedClientSecret, grant_type: 'password' },
        422,
      ],
      [
        'PUT',
        '/v1/connection/secretive/oauth',
        { ...oauth, client_secret: refusedClientSecret, token_url: 'https://[::1]/' },
        422,
      ],
      [
        'PATCH',
        '/v1/connection/secretive/oauth',
        { client_secret: refusedClientSecret, extra: unknownField },
        422,
      ],
      [
        'PATCH',
        '/v1/connection',
        [
          {
            name: 'Sneaky',
            key: 'sneaky',
            connection_type: 'https',
            access: 'read',
            authorization: unknownField,
          },
          {
            name: 'Typed',
            key: 'typed',
            connection_type: 'https',
            access: 'read',
            client_secret: refusedClientSecret,
          },
        ],
        200,
      ],
      ['DELETE', '/v1/connection/secretive', undefined, 409],
    ];
    for (const [method, path, json, status] of refused) {
      const answer = await call(method, path, json);
      assert.equal(answer.status, status, `${method} ${path}: ${answer.text}`);
    }
    const malformed = await service.call('PUT', '/v1/connection/secretive', {
      token,
      body: `{"url":"${PUBLIC_URL}","authorization":${refusedAuthorization}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);

    const secrets = [
      authorization,
      firstClientSecret,
      rotatedClientSecret,
      refusedAuthorization,
      refusedClientSecret,
      unknownField,
      urlPassword,
    ];
    assert.ok(service.answers.length >= accepted.length + refused.length);
    assert.ok(
      service.logLines.some((line) => line.includes('connection secrets replaced')),
      'the log capture sees the service log lines',
    );
    assert.ok(
      service.logLines.some((line) => line.includes('request completed')),
      'request lines are captured',
    );
    for (const secret of secrets) {
      const bare = secret.replace(/^Bearer /, '');
      for (const text of service.answers)
        assert.ok(!text.includes(bare), `an answer holds ${secret}: ${text}`);
      for (const line of service.logLines)
        assert.ok(!line.includes(bare), `a log line holds ${secret}: ${line}`);
    }

    const stored = await service.call('GET', '/v1/connection/secretive', { token });
    assert.deepEqual(stored.body.secrets, { url: PUBLIC_URL, authorization: '**********' });
    assert.equal(stored.body.oauth.client_secret, '**********');
  });
});
