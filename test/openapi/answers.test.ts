// Real answers against /openapi.json (issue 25): a run over the read routes of every domain and error
// probes on every documented operation, each answer checked (status documented, content type listed,
// body valid under Ajv) by startTestService, as every HTTP test's answers are. The write routes are
// covered the same way by test/audit/configuration-audit.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import inject from 'light-my-request';
import { type OpenApi, operations } from '../helpers/openapi-contract.ts';
import { type CallOptions, startTestService, type TestService } from '../helpers/service.ts';

const DATASTORE = 'contract_store';

describe('answers match /openapi.json', () => {
  let service: TestService;
  let token: string;
  let apiKey: string;
  let document: OpenApi;
  const asRoot = async (method: string, path: string, json?: unknown) => {
    const answer = await service.call(method, path, { token, json });
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${answer.text}`);
    return answer;
  };

  before(async () => {
    service = await startTestService({ requireManualApproval: true }, { checkAnswers: true });
    token = await service.rootToken();
    document = (await service.call('GET', '/openapi.json')).body;
  });
  after(async () => service?.stop());

  it('answers every read of Area A, the Fides paths and Area B as documented', async () => {
    // A connection without an authorization answers secrets.authorization null (a nullable enum).
    await asRoot('PATCH', '/v1/connection', [
      { key: 'receiver', name: 'Receiver', connection_type: 'https', access: 'read' },
    ]);
    await asRoot('PUT', '/v1/connection/receiver', { url: 'https://receiver.example.com/hook' });
    const connection = await asRoot('GET', '/v1/connection/receiver');
    assert.equal(connection.body.secrets.authorization, null);
    await asRoot('GET', '/v1/connection');
    await asRoot('POST', '/v1/connection/receiver/signing-secret');

    await asRoot('PATCH', '/v1/dsr/policy', [{ key: 'contract_policy', name: 'Contract policy' }]);
    await asRoot('PATCH', '/v1/dsr/policy/contract_policy/rule', [
      { key: 'contract_rule', name: 'Contract rule', action_type: 'access' },
    ]);
    await asRoot('GET', '/v1/dsr/policy');
    await asRoot('GET', '/v1/dsr/policy/contract_policy');

    const hook = { connection_config_key: 'receiver', key: 'contract_hook', name: 'Hook' };
    await asRoot('PUT', '/v1/policy/contract_policy/webhook/pre_execution', [
      { ...hook, direction: 'one_way' },
    ]);
    await asRoot('GET', '/v1/policy/contract_policy/webhook/pre_execution');
    await asRoot('GET', '/v1/policy/contract_policy/webhook/pre_execution/contract_hook');
    await asRoot('GET', '/api/v1/dsr/policy/contract_policy/webhook/pre_execution');
    await asRoot('GET', '/api/v1/dsr/policy/contract_policy/webhook/pre_execution/contract_hook');
    await asRoot('PUT', '/v1/pre_approval_webhook', [hook]);
    await asRoot('GET', '/v1/pre_approval_webhook');
    await asRoot('GET', '/v1/pre_approval_webhook/contract_hook');
    await asRoot('GET', '/api/v1/dsr/webhook/pre_approval');
    await asRoot('GET', '/api/v1/dsr/webhook/pre_approval/contract_hook');
    // Fides answers null here; the document declares it.
    const removed = await asRoot('DELETE', '/api/v1/dsr/webhook/pre_approval/contract_hook');
    assert.equal(removed.text, 'null');

    const created = await asRoot('POST', '/v1/privacy-request', [
      { policy_key: 'contract_policy', identity: { email: 'subject@example.com' } },
    ]);
    const id = created.body.succeeded[0].id as string;
    await asRoot('GET', '/v1/privacy-request');
    await asRoot('GET', `/v1/privacy-request/${id}`);
    await asRoot('GET', `/v1/privacy-request/${id}/log`);
    await service.call('GET', `/v1/privacy-request/${id}/access-results`, { token });
    await service.call('GET', `/v1/privacy-center/privacy-request/${id}`);
    await asRoot('PATCH', '/v1/privacy-request/administrate/deny', { request_ids: [id], reason: 'test' });
    await service.call('POST', `/v1/privacy-request/${id}/resume`, { json: {} });
    await service.call('POST', `/v1/privacy-request/${id}/pre-approve/eligible`, {
      headers: { authorization: 'Bearer not-a-reply-token' },
    });

    for (const path of ['/v1/oauth/client', '/v1/user', '/v1/datastore', '/v1/api-key', '/v1/maintenance'])
      await asRoot('GET', path);
    for (const path of ['/v1/audit-log', '/v1/outbox', '/v1/privacy-center', '/console/session'])
      await asRoot('GET', path);
    await service.call('GET', '/v1/privacy-center/config');
    await service.call('GET', '/health');
    // Loopback: open without LETHE_METRICS_TOKEN; text/plain as documented.
    const metrics = await service.call('GET', '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);

    await asRoot('POST', '/v1/datastore', { name: DATASTORE });
    const key = await asRoot('POST', '/v1/api-key', {
      name: 'contract',
      datastores: [DATASTORE],
      rate_limit_per_minute: 100_000,
    });
    apiKey = key.body.key;
    const subject = (json?: unknown, method = 'POST'): [string, CallOptions] => [
      method,
      { headers: { 'api-key': apiKey, datastore: DATASTORE }, json },
    ];
    const api = (path: string, [method, options]: [string, CallOptions]) =>
      service.call(method, path, options);
    const entities = await api(
      '/api/entity/create',
      subject([{ name: 'users', attributes: [{ name: 'email', value: 'subject@example.com' }] }]),
    );
    assert.equal(entities.status, 203, entities.text);
    const entityId = entities.body[0].id as string;
    await api('/api/entity/get-by-id', subject([entityId]));
    await api('/api/entity/get-by-identity', subject(['subject@example.com']));
    await api(
      '/api/attribute/update',
      subject([{ id: entityId, attributes: [{ name: 'phone', value: '1' }] }]),
    );
    await api('/api/user/sar', subject({ entityId, email: 'subject@example.com' }));
    await api('/api/file/download', subject({ entityId, attributeName: 'photo' }));
    await api(
      `/api/entity/get-by-id?ids=${encodeURIComponent(JSON.stringify([entityId]))}`,
      subject(undefined, 'GET'),
    );
    await api('/api/user/delete', subject({ entityId, attributeNames: ['users.phone'] }));
    await api('/api/user/forget', subject({ entityId }));
  });

  it('answers the error probes of every documented operation as documented, with {detail}', async () => {
    const probes: { method: string; path: string; options: CallOptions; expect: number }[] = [];
    const credentials = (path: string): CallOptions =>
      path.startsWith('/api/') && !path.startsWith('/api/v1/')
        ? { headers: { 'api-key': apiKey, datastore: DATASTORE } }
        : { token };
    for (const { path, method, operation } of operations(document)) {
      const verb = method.toUpperCase();
      const plain = path.startsWith('/api/') && !path.startsWith('/api/v1/');
      const filled = path.replace(/\{[^{}]+\}/g, 'x');
      if (path.includes('{')) {
        const long = path.replace(/\{[^{}]+\}/g, 'a'.repeat(101));
        probes.push({ method: verb, path: long, options: credentials(path), expect: 414 });
        const malformed = path.replace(/\{[^{}]+\}/, '%zz').replace(/\{[^{}]+\}/g, 'x');
        probes.push({ method: verb, path: malformed, options: credentials(path), expect: 400 });
      }
      // The reply-to calls check their token before reading a body: those probes answer 401.
      const replyToken = JSON.stringify(operation.security) === '[{"replyToken":[]}]';
      if (operation.requestBody && !replyToken) {
        const big = { ...credentials(path), json: 'x'.repeat(1024 * 1024) };
        probes.push({ method: verb, path: filled, options: big, expect: 413 });
        if (!plain) {
          const xml = { ...credentials(path), headers: { 'content-type': 'application/xml' }, body: '<a/>' };
          probes.push({ method: verb, path: filled, options: xml, expect: 415 });
          const broken = { ...credentials(path), headers: { 'content-type': 'application/json' }, body: '{' };
          probes.push({ method: verb, path: filled, options: broken, expect: 400 });
        }
      }
      // /metrics is open to loopback callers while LETHE_METRICS_TOKEN is unset.
      const guarded = (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
      if (guarded && path !== '/metrics')
        probes.push({ method: verb, path: filled, options: {}, expect: 401 });
    }
    assert.ok(probes.length > 250, `${probes.length} probes`);
    const unexpected: string[] = [];
    for (const probe of probes) {
      const answer = await service.call(probe.method, probe.path, probe.options);
      if (answer.status !== probe.expect)
        unexpected.push(`${probe.method} ${probe.path.slice(0, 80)}: ${answer.status}, not ${probe.expect}`);
    }
    assert.deepEqual(unexpected, []);
  });

  it('answers a malformed percent-encoding and an over-long path parameter with {detail}, naming no value', async () => {
    const malformed = await service.call('GET', '/v1/privacy-request/%E0%A4%A', { token });
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.body, { detail: 'The path holds a malformed percent-encoding.' });
    const long = await service.call('GET', `/v1/connection/${'b'.repeat(101)}`, { token });
    assert.equal(long.status, 414);
    assert.deepEqual(long.body, { detail: 'A path parameter is longer than 100 characters.' });
  });

  it('answers a multipart field declared JSON but malformed with a documented 400, not 406', async () => {
    const boundary = 'contract-boundary';
    const body = [
      `--${boundary}`,
      'content-disposition: form-data; name="attribute"',
      'content-type: application/json',
      '',
      '{"entityId":',
      `--${boundary}`,
      'content-disposition: form-data; name="file"; filename="a.txt"',
      'content-type: text/plain',
      '',
      'hello',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const answer = await service.call('POST', '/api/file/upload', {
      headers: {
        'api-key': apiKey,
        datastore: DATASTORE,
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body,
    });
    assert.equal(answer.status, 400, answer.text);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain/);
  });

  it('answers an empty path id with 404, and malformed login JSON, as documented', async () => {
    // An empty path id names nothing: 404 {detail}, before any credential or schema check.
    for (const [method, path, options] of [
      ['GET', '/v1/privacy-center/privacy-request/', {}],
      ['GET', '/v1/privacy-request/', { token }],
      ['GET', '/v1/connection/', { token }],
      ['DELETE', '/v1/policy/', {}],
      ['PATCH', '/api/v1/dsr/policy//webhook/pre_execution/x', { token, json: {} }],
    ] as const) {
      const empty = await service.call(method, path, options);
      assert.equal(empty.status, 404, `${method} ${path}: ${empty.text}`);
      assert.deepEqual(empty.body, { detail: `No route ${method} ${path}.` });
    }
    const login = await service.call('POST', '/v1/login', {
      headers: { 'content-type': 'application/json' },
      body: '{"username":',
    });
    assert.equal(login.status, 400, login.text);
  });

  it('answers 503 {detail} while shutting down, not the framework body', async () => {
    const closing = await startTestService();
    const app = closing.app!;
    await closing.stop();
    // A request the router still takes once closing began (a kept-alive connection, a pipelined request).
    const answer = await inject((request, response) => app.routing(request, response), {
      method: 'GET',
      url: '/health',
    });
    assert.equal(answer.statusCode, 503, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { detail: 'The service is shutting down; try again shortly.' });
  });
});
