// Property-based hostile input over every route the OpenAPI document lists: arbitrary JSON, forms,
// strings, path segments and headers, with and without credentials. No answer may be a 5xx, and the
// service must still answer its health check afterwards. LETHE_FUZZ_RUNS raises the case count
// (the chaos run uses 10,000).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestService, type TestService } from '../helpers/service.ts';

const RUNS = Number(process.env.LETHE_FUZZ_RUNS ?? 300);

interface Route {
  method: string;
  path: string;
}

const segment = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '..',
    '%00',
    "x'; DROP TABLE policies; --",
    'default_access_policy',
    'pri_00000000-0000-4000-8000-000000000000',
    '*',
    '%2e%2e%2f',
  ),
);

const payload = fc.oneof(
  fc.record({ kind: fc.constant('json' as const), value: fc.jsonValue({ maxDepth: 4 }) }),
  fc.record({ kind: fc.constant('raw-json' as const), value: fc.string({ maxLength: 200 }) }),
  fc.record({
    kind: fc.constant('form' as const),
    value: fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 60 }), { maxKeys: 6 }),
  }),
  fc.record({ kind: fc.constant('text' as const), value: fc.string({ maxLength: 200 }) }),
  fc.record({ kind: fc.constant('none' as const), value: fc.constant(null) }),
);

const credentials = fc.constantFrom('root', 'none', 'garbage', 'api-key-garbage');

function fillPath(template: string, values: string[]): string {
  let index = 0;
  return template.replace(/\{[^}]+\}/g, () => encodeURIComponent(values[index++] ?? 'x'));
}

describe('arbitrary input on every documented route', () => {
  let service: TestService;
  let routes: Route[];
  before(async () => {
    service = await startTestService();
    const document = (await service.call('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
  });
  after(() => service.stop());

  it('never answers 5xx', async () => {
    assert.ok(routes.length > 5, 'the OpenAPI document lists the routes');
    const token = await service.rootToken();
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.array(segment, { minLength: 3, maxLength: 3 }),
        payload,
        credentials,
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        async (routeIndex, pathValues, body, credential, datastore) => {
          const route = routes[routeIndex % routes.length] as Route;
          const headers: Record<string, string> = {};
          if (credential === 'root') headers.authorization = `Bearer ${token}`;
          if (credential === 'garbage') headers.authorization = 'Bearer lat_garbage';
          if (credential === 'api-key-garbage') headers['api-key'] = 'lk_garbage_garbage';
          if (datastore !== undefined) headers.datastore = datastore.replace(/[^\x20-\x7e]/g, '');
          let requestBody: string | URLSearchParams | undefined;
          if (route.method !== 'GET' && route.method !== 'DELETE' && body.kind !== 'none') {
            if (body.kind === 'json') {
              headers['content-type'] = 'application/json';
              requestBody = JSON.stringify(body.value);
            } else if (body.kind === 'raw-json') {
              headers['content-type'] = 'application/json';
              requestBody = body.value as string;
            } else if (body.kind === 'form') {
              requestBody = new URLSearchParams(body.value as Record<string, string>);
            } else {
              headers['content-type'] = 'text/plain';
              requestBody = body.value as string;
            }
          }
          const answer = await service.call(route.method, fillPath(route.path, pathValues), {
            headers,
            body: requestBody,
          });
          assert.ok(
            answer.status < 500,
            `${route.method} ${route.path} answered ${answer.status}: ${answer.text.slice(0, 300)}`,
          );
        },
      ),
      { numRuns: RUNS },
    );
    const health = await service.call('GET', '/health');
    assert.equal(health.status, 200);
  });
});
