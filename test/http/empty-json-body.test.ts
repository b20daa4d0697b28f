// A request that says `Content-Type: application/json` and sends no body has no body (issue 37): Fides
// scripts send that header on every call, GET and DELETE included (docs/migrating-from-fides.md). Fastify
// itself refuses an empty body with a JSON type; Lethe's parser takes it as no body, so a route whose
// schema needs a body still answers its own 4xx. The route table is walked, so a route added later is
// covered too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { routeTable } from '../helpers/route-table.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const JSON_TYPE = { 'content-type': 'application/json' };

describe('an empty body with a JSON content type', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    // A path parameter filled with a name nothing has answers 404 or 400 wherever the route table leads;
    // whether the contract documents each of those is the contract tests' concern, not this one's.
    service = await startTestService({}, { checkAnswers: false });
    token = await service.rootToken();
  });
  after(async () => service.stop());

  it('answers every GET and DELETE as it answers the same call without the header', async () => {
    const routes = routeTable(service.app!).filter(
      (route) => ['GET', 'DELETE'].includes(route.method) && !route.url.includes('*'),
    );
    assert.ok(routes.length > 50, `the route table lists the API (${routes.length} routes)`);
    const differing: string[] = [];
    for (const route of routes) {
      const url = route.url.replaceAll(/:[A-Za-z_]+/g, 'nothing-by-this-name');
      // With the header first: a DELETE that found something would change what the second call sees.
      const typed = await service.call(route.method, url, { token, headers: JSON_TYPE });
      const plain = await service.call(route.method, url, { token });
      if (typed.status !== plain.status)
        differing.push(`${route.method} ${url}: ${typed.status} ${typed.text}`);
    }
    assert.deepEqual(differing, []);
  });

  it('lets a DELETE with the header and no body delete', async () => {
    const put = await service.call('PUT', '/v1/manual-system/empty-json-body', {
      token,
      json: {
        name: 'Paper files',
        actions: ['access'],
        fields: [{ name: 'file_number', label: 'File number' }],
        instructions: 'Look in the cabinet.',
      },
    });
    assert.equal(put.status, 201, put.text);
    const removed = await service.call('DELETE', '/v1/manual-system/empty-json-body', {
      token,
      headers: JSON_TYPE,
    });
    assert.equal(removed.status, 204, removed.text);
  });

  it('still fails a POST whose schema needs a body, with the schema validation sentence', async () => {
    const answer = await service.call('POST', '/v1/oauth/client', { token, headers: JSON_TYPE });
    assert.equal(answer.status, 422, answer.text);
    assert.equal(answer.body.detail, 'body must be object.');
    assert.doesNotMatch(answer.text, /cannot be empty/);
  });

  it('still refuses a body that is not JSON', async () => {
    const answer = await service.call('POST', '/v1/oauth/client', {
      token,
      headers: JSON_TYPE,
      body: '{"name":',
    });
    assert.equal(answer.status, 400, answer.text);
  });
});
