// Error sentences over HTTP: an enum lists its allowed values (body, bulk item, querystring, a union of
// literals), a pattern is described in words rather than as a regular expression, a body over the limit
// is told the limit; every refusal leaves the store as it was. Also GET /, which sends a browser to the
// console.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import AjvModule from 'ajv';
import Type from 'typebox';
import { describeSchemaErrors, MESSAGE_AJV_OPTIONS } from '../../src/validation/messages.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const Ajv = AjvModule.default;

describe('error sentences', () => {
  let service: TestService;
  let token: string;
  before(async () => {
    service = await startTestService();
    token = await service.rootToken();
  });
  after(async () => service?.stop());

  const count = async (table: string) =>
    Number(
      (await service.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n,
    );

  it('a bad datastore name answers a sentence saying what a name may hold, not a regular expression', async () => {
    const before = await count('datastores');
    for (const name of ['Upper Case', '../etc', '-leading-dash', 'a'.repeat(64)]) {
      const answer = await service.call('POST', '/v1/datastore', { token, json: { name } });
      assert.equal(answer.status, 422, name);
      assert.equal(
        answer.body.detail,
        'body.name must be 1 to 63 lower-case letters, digits, _ and -, starting with a letter or a digit.',
      );
    }
    const key = await service.call('POST', '/v1/api-key', {
      token,
      json: { name: 'k', datastores: ['Bad!'] },
    });
    assert.equal(key.status, 422);
    assert.doesNotMatch(key.body.detail, /[\^$[\]{}]/);
    assert.equal(await count('datastores'), before);
  });

  it('an enum error lists the allowed values, in a body, a bulk item and a querystring', async () => {
    const connections = await count('connections');
    const bulk = await service.call('PATCH', '/v1/connection', {
      token,
      json: [{ name: 'x', key: 'x', connection_type: 'https', access: 'readwrite' }],
    });
    assert.equal(bulk.status, 200);
    assert.equal(bulk.body.failed[0].message, 'access must be one of: read, write.');
    assert.equal(await count('connections'), connections);

    const rule = await service.call('PATCH', '/v1/dsr/policy/default_erasure_policy/rule', {
      token,
      json: [{ name: 'r', key: 'r', action_type: 'erasure', masking_strategy: { strategy: 'shred' } }],
    });
    assert.equal(
      rule.body.failed[0].message,
      'masking_strategy.strategy must be one of: nullify, delete, forget, hash, random_string, string_rewrite.',
    );

    const webhooks = await service.call('PUT', '/v1/policy/default_access_policy/webhook/pre_execution', {
      token,
      json: [{ connection_config_key: 'x', direction: 'sideways', key: 'k', name: 'n' }],
    });
    assert.equal(webhooks.status, 422);
    assert.equal(webhooks.body.detail, 'body.0.direction must be one of: one_way, two_way.');

    const listed = await service.call('GET', '/v1/privacy-request?status=weird', { token });
    assert.equal(listed.status, 422);
    assert.equal(
      listed.body.detail,
      'querystring.status must be one of: identity_unverified, requires_input, pending, approved, denied, in_processing, paused, complete, canceled, error.',
    );
  });

  it('a union of literals lists every one of them, not only the first', async () => {
    const clients = await count('oauth_clients');
    const answer = await service.call('POST', '/v1/oauth/client', { token, json: { scopes: ['nope'] } });
    assert.equal(answer.status, 422);
    assert.match(
      answer.body.detail,
      /^body\.scopes\.0 must be one of: connection:read, .*privacy-request:review/,
    );
    assert.equal(await count('oauth_clients'), clients);
  });

  it('the 413 states the limit, as JSON on /v1 and as text on /api', async () => {
    const requests = await count('privacy_requests');
    const tooBig = JSON.stringify([
      { policy_key: 'default_access_policy', padding: 'x'.repeat(1024 * 1024) },
    ]);
    const management = await service.call('POST', '/v1/privacy-request', {
      token,
      body: tooBig,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(management.status, 413);
    assert.equal(
      management.body.detail,
      'The request body is larger than the limit of 1 MiB (1048576 bytes).',
    );
    assert.equal(await count('privacy_requests'), requests);

    await service.call('POST', '/v1/datastore', { token, json: { name: 'limits' } });
    const key = await service.call('POST', '/v1/api-key', {
      token,
      json: { name: 'k', datastores: ['limits'] },
    });
    assert.equal(key.status, 201, key.text);
    const subjectData = await service.call('POST', '/api/entity/create', {
      body: tooBig,
      headers: { 'content-type': 'application/json', 'api-key': key.body.key, datastore: 'limits' },
    });
    assert.equal(subjectData.status, 413, subjectData.text);
    assert.equal(subjectData.text, 'The request body is larger than the limit of 1 MiB (1048576 bytes).');
  });

  it('GET / redirects to the console', async () => {
    const answer = await fetch(`${service.url}/`, { redirect: 'manual' });
    assert.equal(answer.status, 302);
    assert.equal(answer.headers.get('location'), '/console');
  });
});

describe('describeSchemaErrors', () => {
  const ajv = new Ajv({ strict: false, ...MESSAGE_AJV_OPTIONS });
  const field = (error: { instancePath: string }, property?: string) =>
    ['body', error.instancePath.slice(1).replaceAll('/', '.'), property].filter(Boolean).join('.');
  const sentence = (schema: object, value: unknown) => {
    const validate = ajv.compile(schema);
    assert.equal(validate(value), false);
    return describeSchemaErrors(validate.errors ?? [], field, 'invalid');
  };

  it('never shows a regular expression, even for a pattern without a hint', () => {
    const text = sentence(Type.Object({ code: Type.String({ pattern: '^[A-Z]{3}$' }) }), { code: 'abc' });
    assert.equal(text, 'body.code is not in a form it accepts.');
  });

  it('keeps other messages, and names a missing or extra field', () => {
    assert.equal(sentence(Type.Object({ n: Type.Integer() }), { n: 'x' }), 'body.n must be integer.');
    assert.equal(sentence(Type.Object({ n: Type.Integer() }), {}), 'body.n is required.');
    assert.equal(
      sentence(Type.Object({ n: Type.Integer() }, { additionalProperties: false }), { n: 1, m: 2 }),
      'body.m is not an accepted field.',
    );
  });

  it('lists a union of string and number literals, and does not list a union of other types', () => {
    const literals = Type.Object({ size: Type.Union([Type.Literal('small'), Type.Literal(2)]) });
    assert.equal(sentence(literals, { size: 'huge' }), 'body.size must be one of: small, 2.');
    const mixed = Type.Object({ size: Type.Union([Type.Literal('small'), Type.Integer()]) });
    assert.doesNotMatch(sentence(mixed, { size: 'huge' }), /one of/);
  });

  it('says a size bound in words, not as ajv\'s "must NOT have fewer than"', () => {
    const reason = Type.Object({ reason: Type.String({ minLength: 1, maxLength: 2000 }) });
    assert.equal(sentence(reason, { reason: '' }), 'body.reason must not be empty.');
    assert.equal(
      sentence(reason, { reason: 'x'.repeat(2001) }),
      'body.reason must have at most 2,000 characters.',
    );
    const code = Type.Object({ code: Type.String({ minLength: 6 }) });
    assert.equal(sentence(code, { code: 'abc' }), 'body.code must have at least 6 characters.');
    const list = Type.Object({ ids: Type.Array(Type.String(), { minItems: 1, maxItems: 1 }) });
    assert.equal(sentence(list, { ids: [] }), 'body.ids must not be empty.');
    assert.equal(sentence(list, { ids: ['a', 'b'] }), 'body.ids must have at most 1 item.');
    const small = Type.Object({}, { maxProperties: 2 });
    assert.equal(sentence(small, { a: 1, b: 2, c: 3 }), 'body must have at most 2 fields.');
  });
});
