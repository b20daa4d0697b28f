// Regression: Area B takes its inputs from the query string too, and the request log printed the URL
// with it (`/api/user/sar?…&email=…`, `/api/attribute/update?items=…ssn…`). The request log now carries
// the path only; no query string, body or personal value reaches a log line, at the debug level too.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type ApiClient, apiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const EMAIL = 'query.string.subject@example.com';
const SSN = '078-05-1120';

describe('request logs', () => {
  let service: TestService;
  let api: ApiClient;
  before(async () => {
    service = await startTestService({}, { captureLogs: true });
    api = await apiClient(service, 'logged');
  });
  after(() => service.stop());

  it('carry the path, never the query string or the body', async () => {
    const id = randomUUID();
    const created = await api.call('/api/entity/create', {
      json: [{ id, name: 'users', attributes: [{ name: 'email', value: EMAIL }] }],
    });
    assert.equal(created.status, 203, created.text);
    const items = JSON.stringify([{ id, attributes: [{ name: 'ssn', value: SSN }] }]);
    const calls = [
      `/api/user/sar?entityId=${id}&email=${encodeURIComponent(EMAIL)}`,
      `/api/attribute/update?items=${encodeURIComponent(items)}`,
      `/api/entity/get-by-identity?identities=${encodeURIComponent(JSON.stringify([EMAIL]))}`,
      `/api/no-such-route?email=${encodeURIComponent(EMAIL)}&ssn=${SSN}`,
    ];
    for (const path of calls) {
      const answer = await api.call(path, { method: 'GET' });
      assert.ok(answer.status < 500, `${path}: ${answer.status}`);
    }
    const wrongKey = await service.call('GET', `/api/user/sar?email=${encodeURIComponent(EMAIL)}`, {
      headers: { 'api-key': `${api.key}x`, datastore: 'logged' },
    });
    assert.equal(wrongKey.status, 401);
    const management = await service.call('GET', `/v1/audit-log?entity_id=${id}&note=${SSN}`, {
      token: await service.rootToken(),
    });
    assert.ok(management.status < 500);

    const logged = service.logLines.join('\n');
    assert.ok(logged.includes('"/api/user/sar"'), 'the request log names the path');
    assert.ok(logged.includes('"/api/no-such-route"'), 'an unknown route is logged by its path');
    for (const secret of [EMAIL, encodeURIComponent(EMAIL), SSN, 'query.string.subject', 'entityId=']) {
      assert.equal(logged.includes(secret), false, `${secret} reached a log line`);
    }
    for (const line of service.logLines) {
      assert.equal(/"url":"[^"]*\?/.test(line), false, `a URL with a query string: ${line}`);
    }
  });
});
