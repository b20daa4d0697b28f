// The OpenAPI document types every request body: walking /openapi.json finds no schema that accepts any
// object without naming its fields (Swagger's "Try it out" would offer `{"additionalProp1": {}}`). The bulk
// endpoints document their item shape while still checking each item on its own.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../helpers/service.ts';

type Schema = Record<string, unknown>;

/**
 * Where in `schema` an object admits any fields without naming them; [] when nowhere. Deeper down, an
 * open object is allowed when a description says what it holds (a masking configuration, custom fields);
 * the body itself and its array items must name their fields.
 */
function untypedPlaces(
  schema: unknown,
  at: string,
  components: Record<string, Schema>,
  described = false,
): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const node = schema as Schema;
  if (typeof node.$ref === 'string') {
    const target = components[node.$ref.replace('#/components/schemas/', '')];
    return target ? untypedPlaces(target, at, components, described) : [`${at} (unresolved ${node.$ref})`];
  }
  const places: string[] = [];
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  const combined = ['anyOf', 'oneOf', 'allOf'].some((key) => Array.isArray(node[key]));
  const constrained = node.enum !== undefined || node.const !== undefined || node.type === 'string';
  const bare = Object.keys(node).filter((key) => key !== 'description').length === 0;
  const openObject =
    (node.type === 'object' || (node.type === undefined && !combined && !constrained)) &&
    Object.keys(properties).length === 0 &&
    node.additionalProperties !== false &&
    typeof node.additionalProperties !== 'object';
  if ((bare || openObject) && !(described && typeof node.description === 'string')) places.push(at);
  for (const [name, inner] of Object.entries(properties))
    places.push(...untypedPlaces(inner, `${at}.${name}`, components, true));
  if (typeof node.additionalProperties === 'object')
    places.push(...untypedPlaces(node.additionalProperties, `${at}.*`, components, true));
  if (node.items !== undefined) places.push(...untypedPlaces(node.items, `${at}[]`, components, described));
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(node[key]))
      (node[key] as unknown[]).forEach((inner, index) =>
        places.push(...untypedPlaces(inner, `${at}.${key}[${index}]`, components, described)),
      );
  return places;
}

describe('request bodies in /openapi.json', () => {
  let service: TestService;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAPI document is walked by hand
  let document: any;
  before(async () => {
    service = await startTestService();
    const answer = await service.call('GET', '/openapi.json');
    assert.equal(answer.status, 200);
    document = answer.body;
  });
  after(async () => service?.stop());

  const bodySchema = (path: string, method: string): Schema =>
    document.paths[path][method].requestBody.content['application/json'].schema;

  it('has no request body that admits any object without naming its fields', () => {
    const components = (document.components?.schemas ?? {}) as Record<string, Schema>;
    const untyped: string[] = [];
    let bodies = 0;
    for (const [path, operations] of Object.entries<Record<string, { requestBody?: { content: object } }>>(
      document.paths,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
          bodies += 1;
          const schema = (media as { schema?: unknown }).schema;
          if (schema === undefined) untyped.push(`${method.toUpperCase()} ${path} ${type}: no schema`);
          untyped.push(
            ...untypedPlaces(schema, 'body', components).map(
              (place) => `${method.toUpperCase()} ${path} ${type}: ${place}`,
            ),
          );
        }
      }
    }
    assert.ok(bodies > 20, `walked ${bodies} request bodies`);
    assert.deepEqual(untyped, []);
  });

  it('documents the item shape of the bulk endpoints', () => {
    const requests = bodySchema('/v1/privacy-request', 'post');
    assert.equal(requests.type, 'array');
    assert.equal(requests.maxItems, 50);
    const request = requests.items as Schema;
    assert.deepEqual(request.required, ['identity', 'policy_key']);
    const identity = (request.properties as Record<string, Schema>).identity as Schema;
    assert.deepEqual(Object.keys(identity.properties as object), ['email', 'phone_number']);

    const connection = bodySchema('/v1/connection', 'patch').items as Schema;
    assert.deepEqual(connection.required, ['name', 'key', 'connection_type', 'access']);
    const policy = bodySchema('/v1/dsr/policy', 'patch').items as Schema;
    assert.ok('execution_timeframe' in (policy.properties as object));
    const rule = bodySchema('/v1/dsr/policy/{policy_key}/rule', 'patch').items as Schema;
    assert.ok('masking_strategy' in (rule.properties as object));
  });

  it('still checks bulk items one by one: a bad item is listed in failed and the good one applies', async () => {
    const token = await service.rootToken();
    const answer = await service.call('PATCH', '/v1/connection', {
      token,
      json: [
        { name: 'Good', key: 'good_one', connection_type: 'https', access: 'read' },
        { name: 'Bad', key: 'bad_one', connection_type: 'https', access: 'sideways' },
        { name: 'Extra', key: 'extra_one', connection_type: 'https', access: 'read', secret: 'x' },
      ],
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(
      answer.body.succeeded.map((item: { key: string }) => item.key),
      ['good_one'],
    );
    assert.deepEqual(
      answer.body.failed.map((failure: { message: string }) => failure.message),
      ['access must be one of: read, write.', 'secret is not an accepted field.'],
    );
    for (const body of [{}, 'text', [1], Array.from({ length: 51 }, () => ({}))]) {
      const refused = await service.call('PATCH', '/v1/connection', { token, json: body });
      assert.equal(refused.status, 422, JSON.stringify(body).slice(0, 40));
    }
    const listed = await service.call('GET', '/v1/connection', { token });
    assert.deepEqual(
      listed.body.items.map((item: { key: string }) => item.key),
      ['good_one'],
    );
  });
});
