// Security headers (@fastify/helmet) on every kind of answer: management, subject data, file downloads,
// health, the OpenAPI document, and errors (401, 404, 413, 429) alike; no X-Powered-By.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiClient } from '../helpers/area-b.ts';
import { type CallResult, startTestService, type TestService } from '../helpers/service.ts';

const EXPECTED: Record<string, string | RegExp> = {
  'x-content-type-options': 'nosniff',
  'strict-transport-security': /^max-age=\d{7,}; includeSubDomains$/,
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'origin-agent-cluster': '?1',
  'x-xss-protection': '0',
};

function assertSecurityHeaders(answer: CallResult, what: string) {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    const value = answer.headers.get(name);
    assert.ok(value !== null, `${what}: ${name} missing`);
    if (expected instanceof RegExp) assert.match(value, expected, `${what}: ${name}`);
    else assert.equal(value, expected, `${what}: ${name}`);
  }
  assert.equal(answer.headers.get('x-powered-by'), null, what);
}

describe('security headers', () => {
  let service: TestService;

  before(async () => {
    service = await startTestService({ authFailuresPerMinute: 1 });
  });
  after(() => service.stop());

  it('are on management, subject-data, download, health and OpenAPI answers', async () => {
    const token = await service.rootToken();
    const client = await apiClient(service, 'helmeted');
    const created = await client.call('/api/entity/create', { json: [{ name: 'users' }] });
    const id = created.body[0].id as string;
    const upload = new FormData();
    upload.append('attribute', JSON.stringify({ entityId: id, name: 'scan', value: 'scan.html' }));
    upload.append('file', new Blob(['<script>alert(1)</script>'], { type: 'text/html' }), 'scan.html');
    const answers: [string, CallResult][] = [
      ['GET /v1/datastore', await service.call('GET', '/v1/datastore', { token })],
      ['POST /api/entity/create', created],
      ['POST /api/file/upload', await client.call('/api/file/upload', { body: upload })],
      [
        'GET /api/file/download',
        await client.call(`/api/file/download?entityId=${id}&attributeName=scan`, { method: 'GET' }),
      ],
      ['GET /health', await service.call('GET', '/health')],
      ['GET /openapi.json', await service.call('GET', '/openapi.json')],
    ];
    for (const [what, answer] of answers) {
      assert.ok(answer.status < 300, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assertSecurityHeaders(answer, what);
    }
    const download = answers[3]?.[1] as CallResult;
    assert.equal(download.headers.get('x-content-type-options'), 'nosniff');
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment;/);
    assert.equal(download.headers.get('content-type'), 'text/html', 'the uploaded type is replayed');
    assert.equal(
      download.headers.get('content-security-policy'),
      'sandbox',
      'but its content runs sandboxed',
    );
  });

  it('are on error answers too: 401, 404, 413 and 429', async () => {
    const client = await apiClient(service, 'errors');
    const answers: [string, number, CallResult][] = [
      ['unknown route', 404, await service.call('GET', '/v1/nothing-here')],
      ['no token', 401, await service.call('GET', '/v1/datastore')],
      [
        'body over 1 MiB',
        413,
        await service.call('POST', '/v1/datastore', {
          token: await service.rootToken(),
          json: { name: 'x'.repeat(1_100_000) },
        }),
      ],
      [
        'unknown API key',
        401,
        await client.call('/api/entity/get-by-id', { json: ['x'], headers: { 'api-key': 'guess' } }),
      ],
      ['throttled address', 429, await client.call('/api/entity/get-by-id', { json: ['x'] })],
    ];
    for (const [what, status, answer] of answers) {
      assert.equal(answer.status, status, `${what}: ${answer.text.slice(0, 200)}`);
      assertSecurityHeaders(answer, what);
    }
  });
});
