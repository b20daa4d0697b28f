// Answers that carry personal data or a secret are `Cache-Control: no-store` (docs/security.md).
// The rule is kept at its root: every answer of the service is no-store by default (management under
// /v1, /api/v1 and bare paths, the subject data API, errors, health), and only the console's static files
// set a caching policy of their own. Signing secrets, privacy requests, subject data, keys shown once and
// tokens used to lack it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type CallResult, startTestService, type TestService } from '../helpers/service.ts';
import { apiClient } from '../helpers/area-b.ts';

describe('Cache-Control: no-store', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it('is on every answer carrying a secret, personal data, a privacy request or a token, and on errors', async () => {
    const token = await service.rootToken();
    const client = await apiClient(service, 'uncached');
    const created = await client.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'ada@example.com' }] }],
    });
    const id = created.body[0].id as string;
    const submitted = await service.call('POST', '/v1/privacy-request', {
      token,
      json: [{ identity: { email: 'ada@example.com' }, policy_key: 'default_access_policy' }],
    });
    const requestId = submitted.body.succeeded[0]?.id as string;
    const answers: [string, CallResult][] = [
      [
        'POST /v1/oauth/token',
        await service.call('POST', '/v1/oauth/token', {
          json: {
            grant_type: 'client_credentials',
            client_id: service.config.rootClient?.id,
            client_secret: service.config.rootClient?.secret,
          },
        }),
      ],
      [
        'PATCH /v1/connection (signing secret)',
        await service.call('PATCH', '/v1/connection', {
          token,
          json: [{ name: 'crm', key: 'crm', connection_type: 'https', access: 'read' }],
        }),
      ],
      ['POST /v1/privacy-request', submitted],
      [
        'GET /v1/privacy-request/:id',
        await service.call('GET', `/v1/privacy-request/${requestId}`, { token }),
      ],
      ['GET /api/v1/privacy-request', await service.call('GET', '/api/v1/privacy-request', { token })],
      ['GET /privacy-request', await service.call('GET', '/privacy-request', { token })],
      [
        'POST /v1/api-key',
        await service.call('POST', '/v1/api-key', {
          token,
          json: { name: 'shown once', datastores: ['uncached'] },
        }),
      ],
      ['POST /api/entity/create', created],
      ['POST /api/entity/get-by-id', await client.call('/api/entity/get-by-id', { json: [id] })],
      [
        'POST /api/user/sar',
        await client.call('/api/user/sar', { json: { entityId: id, email: 'dpo@example.com' } }),
      ],
      ['GET /v1/audit-log', await service.call('GET', '/v1/audit-log', { token })],
      ['401 on /v1', await service.call('GET', '/v1/privacy-request')],
      ['401 on /api', await service.call('POST', '/api/entity/get-by-id', { json: [id] })],
      ['GET /health', await service.call('GET', '/health')],
    ];
    for (const [what, answer] of answers) {
      assert.ok(answer.status < 500, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.equal(answer.headers.get('cache-control'), 'no-store', `${what}: ${answer.status}`);
    }
  });
});
