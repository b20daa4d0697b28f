// Inputs the property-based run found answering 500, each pinned as a plain example: the answer is a 4xx
// sentence and the store is unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient, rowCounts } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('inputs the fuzzer found', () => {
  let service: TestService;
  let token: string;
  let api: ApiClient;
  let userId: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    api = await apiClient(service, 'found');
    const created = await api.call('/api/entity/create', {
      json: [{ name: 'users', attributes: [{ name: 'email', value: 'found@example.com' }] }],
    });
    userId = created.body[0].id;
  });
  after(() => service.stop());

  it('answers 400 to a multipart body cut short, on the upload and on a form endpoint, storing nothing', async () => {
    const before = await rowCounts(service, 'found');
    const boundary = 'cut-short';
    const bodies = [
      `--${boundary}\r\nContent-Disposition: form-data; name="attribute"\r\n\r\n${JSON.stringify({ entityId: userId, name: 'photo' })}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nsome bytes`,
      `--${boundary}\r\nContent-Disposition: form-data; name="attribute"\r\n\r\n\r\n`,
    ];
    for (const path of ['/api/file/upload', '/api/entity/get-by-id']) {
      for (const body of bodies) {
        const answer = await api.call(path, {
          body,
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
        assert.equal(answer.status, 400, `${path}: ${answer.text}`);
        assert.match(answer.text, /^The multipart body is malformed: .*multipart data\.$/);
      }
    }
    assert.deepEqual(await rowCounts(service, 'found'), before);
  });

  it('refuses a NUL character in a bulk item, keeping the other items', async () => {
    const answer = await service.call('PATCH', '/v1/connection', {
      token,
      json: [
        { key: 'nul_name', name: 'a\u0000b', connection_type: 'https', access: 'read' },
        { key: 'fine_name', name: 'fine', connection_type: 'https', access: 'read' },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.failed.map((failure: { message: string }) => failure.message),
      ['name holds a NUL character, which cannot be stored.'],
    );
    assert.deepEqual(
      answer.body.succeeded.map((connection: { key: string }) => connection.key),
      ['fine_name'],
    );
    assert.equal((await service.call('GET', '/v1/connection/nul_name', { token })).status, 404);
  });

  it('answers 422 when the database refuses a value (a NUL in a webhook name), changing nothing', async () => {
    const put = (name: string) =>
      service.call('PUT', '/v1/policy/default_access_policy/webhook/pre_execution', {
        token,
        json: [{ connection_config_key: 'fine_name', direction: 'one_way', key: 'hook', name }],
      });
    assert.equal((await put('first')).status, 200);
    const answer = await put('bad\u0000name');
    assert.equal(answer.status, 422, answer.text);
    assert.match(answer.body.detail, /NUL character/);
    const listed = await service.call('GET', '/v1/policy/default_access_policy/webhook/pre_execution', {
      token,
    });
    assert.deepEqual(
      listed.body.map((webhook: { key: string; name: string }) => `${webhook.key}:${webhook.name}`),
      ['hook:first'],
    );
  });
});
