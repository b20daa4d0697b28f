// Property-based hostile input over every route the OpenAPI document lists, plus arbitrary paths: arbitrary
// JSON, forms, multipart parts, headers, methods and path segments, with and without real credentials,
// mixed with near-valid mutations (webhook lists, connections, entities, files, subject rights) so that
// the store really changes. No answer may be a 5xx. Afterwards the store's invariants are checked through
// the API and in SQL: webhook orders contiguous from 0, no orphaned attributes, references or file
// chunks, no staged upload left behind, and every count the API reports equals the rows behind it.
// LETHE_FUZZ_RUNS sets the number of cases (a few hundred in npm test; the chaos run uses 10,000).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Contract, type OpenApi } from '../helpers/openapi-contract.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const RUNS = Number(process.env.LETHE_FUZZ_RUNS ?? 300);
const DATASTORE = 'fuzz';
const POLICIES = ['fuzz_policy', 'default_access_policy', 'default_erasure_policy'];
const CONNECTIONS = ['fuzz_conn_a', 'fuzz_conn_b', 'fuzz_conn_c'];
const WEBHOOK_KEYS = ['hook_a', 'hook_b', 'hook_c', 'hook_d', 'hook_e'];
const TIMING_SEGMENTS = ['pre_execution', 'post_execution', 'pre-execution', 'post-execution'];
const TABLES = ['users', 'orders', 'lines'];
const ATTRIBUTE_NAMES = ['email', 'phone', 'address', 'note', 'photo'];

interface Route {
  method: string;
  path: string;
}

/** One HTTP request as the fuzzer builds it; sent over node:http so any method, path and header goes. */
interface Probe {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** A label for the failure message. */
  label: string;
}

interface Answer {
  status: number;
  text: string;
  contentType: string | undefined;
}

const entityIds: string[] = [];

function send(baseUrl: string, probe: Probe): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(baseUrl);
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: probe.method,
        path: probe.path,
        headers: {
          ...probe.headers,
          ...(probe.body ? { 'content-length': String(probe.body.length) } : {}),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            contentType: response.headers['content-type'],
          }),
        );
        response.on('error', reject);
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error(`no answer in 30 s to ${probe.label}`)));
    request.on('error', reject);
    request.end(probe.body);
  });
}

// ---- generators -------------------------------------------------------------------------------------

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../../etc/passwd',
    'a\u0000b',
    "x'; DROP TABLE policies; --",
    '%00',
    '%2e%2e%2f',
    '\u202e',
    '𝕃𝕖𝕥𝕙𝕖',
    'a'.repeat(300),
    '*',
    '__proto__',
    'constructor',
  ),
);

/** A path segment: hostile strings, or names of things that exist (so some requests reach real rows). */
const segment = fc.oneof(
  hostileString,
  fc.constantFrom(...POLICIES, ...CONNECTIONS, ...WEBHOOK_KEYS, 'default_storage'),
  fc.uuid(),
);

const headerName = fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/);
const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,60}[\x21-\x7e])?$/);
const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
    'multipart/form-data; boundary=',
    'multipart/form-data; boundary=nothing-like-the-body',
    'text/plain',
    'application/octet-stream',
    '*/*',
    'application/xml',
  ),
  headerValue,
);
const extraHeaders = fc.dictionary(headerName, headerValue, { maxKeys: 4 });

const multipartPart = fc.record({
  name: fc.oneof(fc.constantFrom('attribute', 'file', 'items', 'entityId', 'json'), hostileString),
  filename: fc.option(hostileString, { nil: undefined }),
  contentType: fc.option(contentType, { nil: undefined }),
  data: fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes)),
  ),
});

function encodeMultipart(
  parts: { name: string; filename?: string; contentType?: string; data: string | Buffer }[],
  truncated: boolean,
): { body: Buffer; type: string } {
  const boundary = `lethe-fuzz-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name.replace(/["\r\n]/g, '_')}"${
      part.filename === undefined ? '' : `; filename="${part.filename.replace(/["\r\n]/g, '_')}"`
    }`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
          part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''
        }\r\n`,
      ),
      Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data),
      Buffer.from('\r\n'),
    );
  }
  if (!truncated) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

type Body = { type?: string; body?: Buffer };

const arbitraryBody: fc.Arbitrary<Body> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => ({
    type: 'application/json',
    body: Buffer.from(JSON.stringify(value) ?? 'null'),
  })),
  fc.string({ maxLength: 200 }).map((text) => ({ type: 'application/json', body: Buffer.from(text) })),
  fc.dictionary(fc.string({ maxLength: 20 }), fc.string({ maxLength: 60 }), { maxKeys: 6 }).map((fields) => ({
    type: 'application/x-www-form-urlencoded',
    body: Buffer.from(new URLSearchParams(fields).toString()),
  })),
  fc
    .tuple(fc.array(multipartPart, { maxLength: 4 }), fc.boolean())
    .map(([parts, truncated]) => encodeMultipart(parts, truncated)),
  fc.tuple(contentType, fc.uint8Array({ maxLength: 512 })).map(([type, bytes]) => ({
    type,
    body: Buffer.from(bytes),
  })),
  fc.constant({}),
);

type Credential = 'root' | 'api-key' | 'none' | 'garbage-token' | 'garbage-key' | 'both-different';
const credential = fc.constantFrom<Credential>(
  'root',
  'root',
  'api-key',
  'api-key',
  'none',
  'garbage-token',
  'garbage-key',
  'both-different',
);

/** Mostly a valid value, sometimes a hostile one: mutations must often succeed for the invariants to matter. */
function mostly<T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>): fc.Arbitrary<T | U> {
  return fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: hostile, weight: 1 });
}

/** A known entity id (as created), in another case, or a fresh one that does not exist. */
const entityId = fc.oneof(
  {
    arbitrary: fc.nat().map((index) => entityIds[index % Math.max(1, entityIds.length)] ?? randomUUID()),
    weight: 6,
  },
  fc.nat().map((index) => (entityIds[index % Math.max(1, entityIds.length)] ?? randomUUID()).toUpperCase()),
  fc.uuid(),
  hostileString,
);
const attributeName = mostly(fc.constantFrom(...ATTRIBUTE_NAMES), hostileString);
const attributeValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  { arbitrary: fc.constant(null), weight: 2 },
  fc.jsonValue({ maxDepth: 1 }),
);

const webhookItem = fc.record(
  {
    connection_config_key: fc.oneof(
      fc.constantFrom(...CONNECTIONS),
      fc.constantFrom(...CONNECTIONS),
      hostileString,
    ),
    direction: mostly(fc.constantFrom('one_way', 'two_way'), hostileString),
    key: mostly(fc.constantFrom(...WEBHOOK_KEYS), hostileString),
    name: mostly(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/), hostileString),
  },
  { requiredKeys: ['connection_config_key', 'key', 'name'] },
);

interface Case {
  credential: Credential;
  method: string;
  path: string;
  body: Body;
  headers: Record<string, string>;
  label: string;
}

const subjectInput = (path: string, input: unknown) => ({ path, input });
const json = (value: unknown): Body => ({
  type: 'application/json',
  body: Buffer.from(JSON.stringify(value)),
});

function cases(routes: Route[]): fc.Arbitrary<Case> {
  const fill = (template: string, values: string[]) => {
    let index = 0;
    return template.replace(/\{[^{}]+\}/g, () => encodeURIComponent(values[index++] ?? 'x'));
  };
  const documented = fc
    .record({
      route: fc.constantFrom(...routes),
      values: fc.array(segment, { minLength: 3, maxLength: 3 }),
      query: fc.option(
        fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), { maxKeys: 3 }),
        {
          nil: undefined,
        },
      ),
      body: arbitraryBody,
      credential,
      headers: extraHeaders,
    })
    .map(({ route, values, query, body, credential, headers }) => ({
      credential,
      method: route.method,
      path: fill(route.path, values) + (query ? `?${new URLSearchParams(query)}` : ''),
      body,
      headers,
      label: `${route.method} ${route.path}`,
    }));
  const rawPath = fc
    .record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND'),
      prefix: fc.constantFrom('', '/v1', '/api/v1', '/api', '/v1/policy', '/api/entity', '/v1/connection'),
      tail: fc.array(segment, { maxLength: 5 }),
      raw: fc.boolean(),
      body: arbitraryBody,
      credential,
    })
    .map(({ method, prefix, tail, raw, body, credential }) => {
      const joined = tail.map((part) => (raw ? part.replace(/[^\x21-\x7e]/g, '') : encodeURIComponent(part)));
      return {
        credential,
        method,
        path: `${prefix}/${joined.join('/')}`.replace(/^\/*/, '/'),
        body: method === 'HEAD' ? {} : body,
        headers: {},
        label: `${method} (raw path)`,
      };
    });
  const webhookList = fc
    .record({
      policy: mostly(fc.constantFrom(...POLICIES), hostileString),
      timing: fc.constantFrom(...TIMING_SEGMENTS),
      items: fc.array(webhookItem, { maxLength: 6 }),
    })
    .map(({ policy, timing, items }) => ({
      credential: 'root' as const,
      method: 'PUT',
      path: `/v1/policy/${encodeURIComponent(policy)}/webhook/${timing}`,
      body: json(items),
      headers: {},
      label: 'PUT webhook list',
    }));
  const webhookSingle = fc
    .record({
      policy: fc.constantFrom(...POLICIES),
      timing: fc.constantFrom(...TIMING_SEGMENTS),
      key: mostly(fc.constantFrom(...WEBHOOK_KEYS), hostileString),
      remove: fc.boolean(),
      patch: fc.record(
        {
          order: fc.oneof(fc.integer({ min: -2, max: 8 }), fc.double(), fc.string({ maxLength: 3 })),
          direction: mostly(fc.constantFrom('one_way', 'two_way'), hostileString),
          connection_config_key: mostly(fc.constantFrom(...CONNECTIONS), hostileString),
          name: hostileString,
        },
        { requiredKeys: [] },
      ),
    })
    .map(({ policy, timing, key, remove, patch }) => ({
      credential: 'root' as const,
      method: remove ? 'DELETE' : 'PATCH',
      path: `/v1/policy/${policy}/webhook/${timing}/${encodeURIComponent(key)}`,
      body: remove ? {} : json(patch),
      headers: {},
      label: `${remove ? 'DELETE' : 'PATCH'} single webhook`,
    }));
  const preApproval = fc.array(webhookItem, { maxLength: 5 }).map((items) => ({
    credential: 'root' as const,
    method: 'PUT',
    path: '/v1/pre_approval_webhook',
    body: json(items.map(({ direction: _direction, ...rest }) => rest)),
    headers: {},
    label: 'PUT pre-approval list',
  }));
  const connections = fc
    .array(
      fc.record(
        {
          key: mostly(fc.constantFrom(...CONNECTIONS), hostileString),
          name: hostileString,
          connection_type: mostly(fc.constant('https'), hostileString),
          access: mostly(fc.constantFrom('read', 'write'), hostileString),
        },
        { requiredKeys: ['key'] },
      ),
      { maxLength: 4 },
    )
    .map((items) => ({
      credential: 'root' as const,
      method: 'PATCH',
      path: '/v1/connection',
      body: json(items),
      headers: {},
      label: 'PATCH connections',
    }));
  const entity = fc.record(
    {
      id: fc.option(mostly(fc.uuid(), hostileString), { nil: undefined }),
      name: mostly(fc.constantFrom(...TABLES), hostileString),
      attributes: fc.array(fc.record({ name: attributeName, value: attributeValue }), { maxLength: 4 }),
      references: fc.array(
        fc.record({ parentId: entityId, parentName: mostly(fc.constantFrom(...TABLES), hostileString) }),
        { maxLength: 2 },
      ),
    },
    { requiredKeys: ['name'] },
  );
  const subject = fc.oneof(
    fc
      .array(entity, { minLength: 1, maxLength: 4 })
      .map((items) => subjectInput('/api/entity/create', items)),
    fc
      .array(
        fc.record({
          id: entityId,
          attributes: fc.array(fc.record({ name: attributeName, value: attributeValue }), { maxLength: 3 }),
        }),
        { maxLength: 3 },
      )
      .map((items) => subjectInput('/api/attribute/update', items)),
    fc
      .array(
        fc.record({
          id: entityId,
          attributes: fc.array(fc.record({ name: attributeName }), { maxLength: 3 }),
        }),
        { maxLength: 3 },
      )
      .map((items) => subjectInput('/api/attribute/delete', items)),
    fc.array(entityId, { maxLength: 4 }).map((ids) => subjectInput('/api/entity/delete', ids)),
    fc.array(entityId, { maxLength: 4 }).map((ids) => subjectInput('/api/entity/get-by-id', ids)),
    fc.record({ entityId }).map((input) => subjectInput('/api/user/forget', input)),
    fc
      .record({
        entityId,
        attributeNames: fc.oneof(
          fc.array(
            fc.tuple(fc.constantFrom(...TABLES), attributeName).map(([t, a]) => `${t}.${a}`),
            { maxLength: 3 },
          ),
          hostileString,
        ),
      })
      .map((input) => subjectInput('/api/user/delete', input)),
    fc
      .record({ entityId, email: mostly(fc.emailAddress(), hostileString) })
      .map((input) => subjectInput('/api/user/sar', input)),
    fc.record({ entityId, attributeName }).map((input) => subjectInput('/api/file/download', input)),
  );
  const subjectCall = fc
    .record({ call: subject, get: fc.boolean() })
    .map(({ call: { path, input }, get }) => ({
      credential: 'api-key' as const,
      method: get ? 'GET' : 'POST',
      path,
      body: json(input),
      headers: {},
      label: `${get ? 'GET' : 'POST'} ${path}`,
    }));
  const upload = fc
    .record({
      attribute: fc.record(
        { entityId, name: attributeName, value: fc.option(hostileString, { nil: undefined }) },
        { requiredKeys: ['entityId', 'name'] },
      ),
      attributeAsJson: fc.boolean(),
      fileFirst: fc.boolean(),
      filename: hostileString,
      fileType: fc.option(contentType, { nil: undefined }),
      bytes: fc.uint8Array({ maxLength: 4096 }),
      extra: fc.array(multipartPart, { maxLength: 2 }),
      truncated: fc.boolean(),
    })
    .map(({ attribute, attributeAsJson, fileFirst, filename, fileType, bytes, extra, truncated }) => {
      const attributePart = {
        name: 'attribute',
        data: attributeAsJson ? JSON.stringify(attribute) : String(attribute.entityId),
      };
      const filePart = { name: 'file', filename, contentType: fileType, data: Buffer.from(bytes) };
      const parts = fileFirst ? [filePart, attributePart, ...extra] : [attributePart, filePart, ...extra];
      const encoded = encodeMultipart(parts, truncated);
      return {
        credential: 'api-key' as const,
        method: 'POST',
        path: '/api/file/upload',
        body: encoded,
        headers: {},
        label: 'POST /api/file/upload',
      };
    });
  return fc.oneof(
    { arbitrary: documented, weight: 5 },
    { arbitrary: rawPath, weight: 1 },
    { arbitrary: webhookList, weight: 2 },
    { arbitrary: webhookSingle, weight: 2 },
    { arbitrary: preApproval, weight: 1 },
    { arbitrary: connections, weight: 1 },
    { arbitrary: subjectCall, weight: 4 },
    { arbitrary: upload, weight: 2 },
  );
}

// ---- the test ----------------------------------------------------------------------------------------

describe('arbitrary input on every documented route', () => {
  let service: TestService;
  let routes: Route[];
  let token: string;
  /** The probes' own root token: a probe of POST /v1/logout may end it, so it is issued again then. */
  let probeToken: string;
  let apiKey: string;
  let apiKeyId: string;
  let contract: Contract;

  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
    probeToken = await issueRootToken();
    const document = (await service.call('GET', '/openapi.json')).body as OpenApi;
    contract = new Contract(document);
    routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({ method: method.toUpperCase(), path })),
    );
    const setup = async (method: string, path: string, body: unknown, expected: number) => {
      const answer = await service.call(method, path, { token, json: body });
      assert.equal(answer.status, expected, `${method} ${path}: ${answer.text}`);
      return answer.body;
    };
    await setup('POST', '/v1/datastore', { name: DATASTORE }, 201);
    const key = await setup(
      'POST',
      '/v1/api-key',
      { name: 'fuzz', datastores: [DATASTORE], rate_limit_per_minute: 1_000_000 },
      201,
    );
    apiKey = key.key;
    apiKeyId = key.id;
    await setup(
      'PATCH',
      '/v1/connection',
      CONNECTIONS.map((key) => ({ key, name: key, connection_type: 'https', access: 'read' })),
      200,
    );
    await setup('PATCH', '/v1/dsr/policy', [{ key: 'fuzz_policy', name: 'Fuzz policy' }], 200);
    for (let user = 0; user < 4; user++) {
      const answer = await service.call('POST', '/api/entity/create', {
        headers: { 'api-key': apiKey, datastore: DATASTORE },
        json: [
          { name: 'users', attributes: [{ name: 'email', value: `fuzz-${user}@example.com` }] },
          { name: 'orders', attributes: [{ name: 'address', value: `${user} Fuzz Street` }] },
        ],
      });
      assert.equal(answer.status, 203, answer.text);
      entityIds.push(...answer.body.map((item: { id: string }) => item.id));
    }
  });
  after(() => service.stop());

  it('never answers 5xx, and every invariant of the store holds afterwards', async () => {
    assert.ok(routes.length > 30, 'the OpenAPI document lists the routes');
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(cases(routes), async (probeCase) => {
        const headers: Record<string, string> = { ...probeCase.headers };
        if (probeCase.credential === 'root') headers.authorization = `Bearer ${probeToken}`;
        if (probeCase.credential === 'garbage-token') headers.authorization = 'Bearer lat_garbage';
        if (probeCase.credential === 'garbage-key') headers['api-key'] = 'lk_garbage_garbage';
        if (probeCase.credential === 'api-key' || probeCase.credential === 'both-different') {
          headers['api-key'] = apiKey;
          headers.datastore ??= DATASTORE;
        }
        if (probeCase.credential === 'both-different') headers.authorization = 'Bearer lk_other_other';
        if (probeCase.body.type) headers['content-type'] = probeCase.body.type;
        const answer = await send(service.url, {
          method: probeCase.method,
          path: probeCase.path,
          headers,
          body: probeCase.body.body,
          label: probeCase.label,
        });
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (probeCase.path.startsWith('/api/entity/create') && answer.status === 203) {
          for (const item of JSON.parse(answer.text) as { id?: string; error: unknown }[]) {
            if (item.error === null && item.id) entityIds.push(item.id);
          }
        }
        if (/maintenance/.test(probeCase.path)) await setMaintenanceOff();
        if (/logout/.test(probeCase.path)) probeToken = await issueRootToken();
        // Whatever the input, the answer is one the document describes (status, content type, body).
        contract.check(probeCase.method, probeCase.path, {
          status: answer.status,
          headers: new Headers(answer.contentType ? { 'content-type': answer.contentType } : {}),
          text: answer.text,
          body: undefined,
        });
        assert.ok(
          answer.status < 500,
          `${probeCase.label} (${probeCase.method} ${probeCase.path.slice(0, 200)}) answered ${answer.status}: ${answer.text.slice(0, 300)}`,
        );
      }),
      { numRuns: RUNS },
    );
    process.stdout.write(
      `# fuzz statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}\n`,
    );
    const health = await service.call('GET', '/health');
    assert.equal(health.status, 200);
    const stillValid = await service.call('POST', '/api/entity/get-by-id', {
      headers: { 'api-key': apiKey, datastore: DATASTORE },
      json: [randomUUID()],
    });
    assert.ok([200, 401, 404].includes(stillValid.status), stillValid.text);
    await checkInvariants(service, token);
    assert.ok(apiKeyId);
  });

  async function issueRootToken(): Promise<string> {
    const root = service.services.config.rootClient as { id: string; secret: string };
    const answer = await service.call('POST', '/v1/oauth/token', {
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: root.id,
        client_secret: root.secret,
      }),
    });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.access_token as string;
  }

  async function setMaintenanceOff() {
    const answer = await service.call('PUT', '/v1/maintenance', { token, json: { enabled: false } });
    assert.equal(answer.status, 200, answer.text);
  }
});

async function checkInvariants(service: TestService, token: string) {
  const db = service.services.db;
  const sql = async <Row = Record<string, unknown>>(text: string, params: unknown[] = []) =>
    (await db.query<Row>(text, params)).rows;
  const read = async (path: string) => {
    const answer = await service.call('GET', path, { token });
    assert.equal(answer.status, 200, `${path}: ${answer.text}`);
    return answer.body;
  };

  // Webhook orders: contiguous from 0 in SQL, and the API lists exactly those rows in that order.
  const gaps = await sql(
    `SELECT policy_id, timing, array_agg(position ORDER BY position) AS positions
       FROM policy_webhooks GROUP BY policy_id, timing
     HAVING min(position) <> 0 OR max(position) <> count(*) - 1 OR count(DISTINCT position) <> count(*)`,
  );
  assert.deepEqual(gaps, [], 'policy webhook positions are 0..n-1 per policy and timing');
  const preApprovalPositions = await sql<{ position: number }>(
    'SELECT position FROM pre_approval_webhooks ORDER BY position',
  );
  assert.deepEqual(
    preApprovalPositions.map((row) => row.position),
    preApprovalPositions.map((_, index) => index),
    'pre-approval positions are 0..n-1',
  );
  const policies = await sql<{ id: string; key: string }>('SELECT id, key FROM policies ORDER BY key');
  for (const policy of policies) {
    for (const [segment, timing] of [
      ['pre_execution', 'pre'],
      ['post_execution', 'post'],
    ] as const) {
      const listed = (await read(`/v1/policy/${encodeURIComponent(policy.key)}/webhook/${segment}`)) as {
        key: string;
        order: number;
      }[];
      const rows = await sql<{ key: string }>(
        'SELECT key FROM policy_webhooks WHERE policy_id = $1 AND timing = $2 ORDER BY position',
        [policy.id, timing],
      );
      assert.deepEqual(
        listed.map((webhook) => `${webhook.order}:${webhook.key}`),
        rows.map((row, index) => `${index}:${row.key}`),
        `${policy.key} ${segment} lists its rows in order`,
      );
    }
  }
  const preApproval = (await read('/v1/pre_approval_webhook')) as { key: string; order: number }[];
  assert.deepEqual(
    preApproval.map((webhook) => webhook.order),
    preApproval.map((_, index) => index),
  );
  assert.equal(preApproval.length, preApprovalPositions.length);

  // Counts the API reports equal the rows behind them.
  const count = async (table: string) =>
    (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]?.n ?? -1;
  assert.equal((await read('/v1/dsr/policy?size=100')).total, await count('policies'), 'policy total');
  assert.equal((await read('/v1/connection?size=100')).total, await count('connections'), 'connection total');
  const datastores = await read('/v1/datastore');
  assert.equal(
    Array.isArray(datastores) ? datastores.length : datastores.total,
    await count('datastores'),
    'datastore count',
  );

  // No orphans: every attribute, reference, file and chunk belongs to a live entity of its datastore.
  const orphans = await sql<Record<string, number>>(
    `SELECT
       (SELECT count(*) FROM entity_attributes a LEFT JOIN entities e
          ON e.datastore = a.datastore AND e.id = a.entity_id WHERE e.id IS NULL)::int AS attributes,
       (SELECT count(*) FROM entity_references r
          LEFT JOIN entities c ON c.datastore = r.datastore AND c.id = r.child_id
          LEFT JOIN entities p ON p.datastore = r.datastore AND p.id = r.parent_id
          WHERE c.id IS NULL OR p.id IS NULL)::int AS cross_references,
       (SELECT count(*) FROM entity_files f LEFT JOIN entities e
          ON e.datastore = f.datastore AND e.id = f.entity_id WHERE f.complete AND e.id IS NULL)::int AS files,
       (SELECT count(*) FROM entity_files WHERE NOT complete)::int AS staged_files,
       (SELECT count(*) FROM entity_file_chunks c LEFT JOIN entity_files f ON f.id = c.file_id
          WHERE f.id IS NULL)::int AS chunks,
       (SELECT count(*) FROM entity_files f
          WHERE f.chunk_count <> (SELECT count(*) FROM entity_file_chunks c WHERE c.file_id = f.id)
             OR f.chunk_count <> coalesce((SELECT max(chunk_no) + 1 FROM entity_file_chunks c WHERE c.file_id = f.id), 0)
       )::int AS chunk_counts`,
  );
  assert.deepEqual(orphans, [
    { attributes: 0, cross_references: 0, files: 0, staged_files: 0, chunks: 0, chunk_counts: 0 },
  ]);

  // Every entity in SQL reads back through the API with the same attributes and files.
  const entities = await sql<{ id: string; attributes: number; files: number }>(
    `SELECT e.id::text AS id,
            (SELECT count(*) FROM entity_attributes a WHERE a.datastore = e.datastore AND a.entity_id = e.id)::int AS attributes,
            (SELECT count(*) FROM entity_files f WHERE f.datastore = e.datastore AND f.entity_id = e.id AND f.complete)::int AS files
       FROM entities e WHERE e.datastore = $1 ORDER BY e.id`,
    [DATASTORE],
  );
  const key = await service.call('POST', '/v1/api-key', {
    token,
    json: { name: 'invariants', datastores: [DATASTORE], rate_limit_per_minute: 1_000_000 },
  });
  assert.equal(key.status, 201, key.text);
  for (let start = 0; start < entities.length; start += 50) {
    const slice = entities.slice(start, start + 50);
    const answer = await service.call('POST', '/api/entity/get-by-id', {
      headers: { 'api-key': key.body.key, datastore: DATASTORE },
      json: slice.map((entity) => entity.id),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.map(
        (item: { id: string; error: unknown; attributes: unknown[]; files: unknown[] }) =>
          `${item.id} ${String(item.error)} ${item.attributes.length} ${item.files.length}`,
      ),
      slice.map((entity) => `${entity.id} null ${entity.attributes} ${entity.files}`),
      'the API reads every entity with the attribute and file counts its rows hold',
    );
  }
}
