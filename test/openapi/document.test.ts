// /openapi.json is a document a client generator can trust (docs/decisions.md#an-api-a-client-generator-can-trust;
// issue 25): the checks Redocly's recommended rules make that matter to a generator, written
// against the served document, plus the ones the issue found missing (ids, tags, servers, security,
// statuses, named schemas, nullable enums, request bodies as the docs use them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';
import { type OpenApi, type Operation, operations } from '../helpers/openapi-contract.ts';

const REPLY_TOKEN_PATHS = [
  '/v1/privacy-request/{id}/resume',
  '/v1/privacy-request/{id}/pre-approve/eligible',
  '/v1/privacy-request/{id}/pre-approve/not-eligible',
];

/** Every `$ref` under `value`, with where it was. */
function refs(value: unknown, at = '#'): { at: string; ref: string }[] {
  if (typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => refs(item, `${at}/${index}`));
  return Object.entries(value).flatMap(([key, inner]) =>
    key === '$ref' && typeof inner === 'string' ? [{ at, ref: inner }] : refs(inner, `${at}/${key}`),
  );
}

/** Every schema node under `value` that satisfies `test`. */
function nodes(value: unknown, test: (node: Record<string, unknown>) => boolean, at = '#'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const here = !Array.isArray(value) && test(value as Record<string, unknown>) ? [at] : [];
  return [...here, ...Object.entries(value).flatMap(([key, inner]) => nodes(inner, test, `${at}/${key}`))];
}

describe('/openapi.json', () => {
  let service: TestService;
  let document: OpenApi;
  let all: { path: string; method: string; operation: Operation }[];
  const label = ({ path, method }: { path: string; method: string }) => `${method.toUpperCase()} ${path}`;

  before(async () => {
    service = await startTestService({ publicUrl: 'https://privacy.example.com' });
    const answer = await service.call('GET', '/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.body;
    all = operations(document);
  });
  after(async () => service?.stop());

  it('is OpenAPI 3.0.3 with servers (LETHE_PUBLIC_URL), a license and described top-level tags', () => {
    assert.equal(document.openapi, '3.0.3');
    assert.deepEqual(document.servers, [{ url: 'https://privacy.example.com' }]);
    assert.equal((document.info.license as { name: string }).name, 'Apache-2.0');
    const declared = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
    const used = new Set(all.flatMap(({ operation }) => operation.tags ?? []));
    assert.deepEqual(
      [...used].filter((tag) => !declared.get(tag)),
      [],
    );
    assert.deepEqual(
      [...declared.keys()].filter((tag) => !used.has(tag)),
      [],
    );
  });

  it('gives every operation a unique camelCase operationId, a summary and one tag', () => {
    assert.ok(all.length > 100, `${all.length} operations`);
    const ids = all.map(({ operation }) => operation.operationId);
    assert.deepEqual(
      all.filter(({ operation }) => !/^[a-z][A-Za-z0-9]*$/.test(operation.operationId ?? '')).map(label),
      [],
    );
    assert.deepEqual(
      ids.filter((id, index) => ids.indexOf(id) !== index),
      [],
    );
    assert.deepEqual(all.filter(({ operation }) => !operation.summary?.trim()).map(label), []);
    assert.deepEqual(all.filter(({ operation }) => operation.tags?.length !== 1).map(label), []);
    // Stable names a generated client is built on (derived from path and method, not from summaries).
    const byLabel = new Map(all.map((entry) => [label(entry), entry.operation.operationId]));
    assert.equal(byLabel.get('POST /v1/privacy-request'), 'createPrivacyRequests');
    assert.equal(byLabel.get('GET /v1/privacy-request'), 'listPrivacyRequest');
    assert.equal(byLabel.get('GET /v1/privacy-request/{id}'), 'getPrivacyRequestById');
    assert.equal(byLabel.get('POST /v1/privacy-request/{id}/resume'), 'resumePrivacyRequest');
    assert.equal(byLabel.get('POST /api/user/sar'), 'userSar');
    assert.equal(byLabel.get('GET /api/user/sar'), 'userSarViaGet');
    assert.equal(
      byLabel.get('DELETE /api/v1/dsr/webhook/pre_approval/{webhook_key}'),
      'deleteFidesDsrWebhookPreApprovalByWebhookKey',
    );
  });

  it('documents /v1 and the Fides and Area B paths, not the /api/v1 and bare aliases of /v1', () => {
    const paths = Object.keys(document.paths);
    assert.ok(paths.includes('/api/v1/dsr/webhook/pre_approval/{webhook_key}'));
    assert.ok(paths.includes('/api/user/sar'));
    assert.ok(!paths.includes('/api/v1/privacy-request'));
    assert.ok(!paths.includes('/privacy-request'));
  });

  it('declares security on every operation: [] where public, the reply-to bearer on resume and pre-approval', () => {
    assert.deepEqual(all.filter(({ operation }) => !Array.isArray(operation.security)).map(label), []);
    const schemes = document.components.securitySchemes;
    for (const { operation } of all)
      for (const requirement of operation.security ?? [])
        for (const scheme of Object.keys(requirement)) assert.ok(schemes[scheme], scheme);
    for (const path of REPLY_TOKEN_PATHS)
      assert.deepEqual(document.paths[path]!.post!.security, [{ replyToken: [] }], path);
    assert.deepEqual(document.paths['/health']!.get!.security, []);
    assert.deepEqual(document.paths['/v1/privacy-center/config']!.get!.security, []);
    assert.deepEqual(document.paths['/v1/privacy-request']!.get!.security, [{ managementToken: [] }]);
  });

  it('describes every response, and documents the statuses the framework answers', () => {
    const undescribed = all.flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses)
        .filter(([, response]) => !response.description || response.description === 'Default Response')
        .map(([status]) => `${label({ path, method })} ${status}`),
    );
    assert.deepEqual(undescribed, []);
    const missing: string[] = [];
    for (const entry of all) {
      const { path, operation } = entry;
      const plain = path.startsWith('/api/') && !path.startsWith('/api/v1/');
      const expected = ['400', '503'];
      if (path.includes('{')) expected.push('404', '414');
      // Any call may carry a body (GET too): too large, or of a type no parser takes.
      expected.push('413', '415');
      if ((path.includes('{') || operation.requestBody || operation.parameters?.length) && !plain)
        expected.push('422');
      if ((operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0))
        expected.push('401', '403');
      for (const status of expected)
        if (!operation.responses[status]) missing.push(`${label(entry)} ${status}`);
    }
    assert.deepEqual(missing, []);
  });

  it('answers every JSON error as {detail} and every Area B error as text/plain', () => {
    const wrong: string[] = [];
    for (const entry of all) {
      const plain = entry.path.startsWith('/api/') && !entry.path.startsWith('/api/v1/');
      for (const [status, response] of Object.entries(entry.operation.responses)) {
        if (Number(status) < 400) continue;
        const types = Object.keys(response.content ?? {});
        const schema = response.content?.['application/json']?.schema as
          { $ref?: string; anyOf?: { $ref?: string }[] } | undefined;
        // /health's 503 is its own body when the store is down, {detail} while shutting down.
        const errorRef = (candidate?: { $ref?: string }) => candidate?.$ref === '#/components/schemas/Error';
        const ok = plain
          ? types.join() === 'text/plain'
          : types.join() === 'application/json' &&
            (errorRef(schema) ||
              (entry.path === '/health' && (schema?.anyOf ?? []).some(errorRef)) ||
              (entry.path === '/v1/oauth/token' && status === '400'));
        if (!ok) wrong.push(`${label(entry)} ${status} ${types.join()} ${JSON.stringify(schema)}`);
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('names the shared shapes under components.schemas and every $ref resolves', () => {
    const schemas = document.components.schemas;
    for (const name of [
      'Error',
      'PrivacyRequest',
      'Policy',
      'Rule',
      'Connection',
      'PolicyWebhook',
      'PreApprovalWebhook',
      'Entity',
      'AccessPackage',
    ])
      assert.ok(schemas[name], name);
    const get = (path: string, method: string, status = '200') =>
      JSON.stringify(document.paths[path]![method]!.responses[status]!.content);
    assert.match(get('/v1/privacy-request/{id}', 'get'), /#\/components\/schemas\/PrivacyRequest"/);
    assert.match(get('/v1/dsr/policy/{policy_key}', 'get'), /#\/components\/schemas\/Policy"/);
    assert.match(get('/v1/connection/{connection_key}', 'get'), /#\/components\/schemas\/Connection"/);
    const unresolved = refs(document).filter(({ ref }) => {
      const name = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
      return !name || !schemas[name];
    });
    assert.deepEqual(unresolved, []);
    assert.equal(document['x-inline-conflicts'], undefined);
    assert.doesNotMatch(JSON.stringify(document), /x-schema-name|x-body-optional/);
  });

  it('declares path parameters as required and lists null in every nullable enum', () => {
    for (const entry of all) {
      const names = [...entry.path.matchAll(/\{([^{}]+)\}/g)].map((match) => match[1]);
      const declared = (entry.operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      assert.deepEqual(declared.map((parameter) => parameter.name).sort(), [...names].sort(), label(entry));
      assert.ok(
        declared.every((parameter) => parameter.required === true),
        label(entry),
      );
    }
    const forbiddingNull = nodes(
      document,
      (node) => node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null),
    );
    assert.deepEqual(forbiddingNull, []);
  });

  it('documents the bodies as the docs use them', () => {
    const token = document.paths['/v1/oauth/token']!.post!;
    assert.deepEqual(Object.keys(token.requestBody!.content).sort(), [
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    for (const path of ['/v1/connection/{connection_key}/signing-secret', ...REPLY_TOKEN_PATHS])
      assert.equal(document.paths[path]!.post!.requestBody!.required, false, path);
    for (const path of ['/api/user/sar', '/api/user/delete', '/api/user/forget', '/api/file/download']) {
      const post = document.paths[path]!.post!;
      assert.ok(post.requestBody?.content['application/json']?.schema, path);
      const query = (post.parameters ?? []).filter((parameter) => parameter.in === 'query');
      assert.ok(query.length > 0, path);
      assert.deepEqual(
        query.filter((parameter) => parameter.required).map((parameter) => parameter.name),
        [],
        path,
      );
    }
    const metrics = document.paths['/metrics']!.get!.responses['200']!;
    assert.deepEqual(Object.keys(metrics.content ?? {}), ['text/plain']);
    const fidesDelete =
      document.paths['/api/v1/dsr/webhook/pre_approval/{webhook_key}']!.delete!.responses['200']!;
    assert.ok(fidesDelete.content?.['application/json']?.schema, 'the Fides DELETE declares its body');
  });
});
