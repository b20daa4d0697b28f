// Route schemas are compiled on first use (src/http/schema-compilation.ts). Start-up no longer proves that
// every schema compiles, so this file does, on the real app; and it shows that a deferred validator and
// serializer behave as Fastify's eager ones do.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify from 'fastify';
import { SchemasCompiledOnFirstUse } from '../../src/http/schema-compilation.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let service: TestService;
before(async () => {
  service = await startTestService();
});
after(() => service?.stop());

test("every route's validators and serializers compile", () => {
  assert.ok(service.app);
  assert.doesNotThrow(() => service.app?.compileAllSchemas());
});

async function appWithOneRoute(schemas: SchemasCompiledOnFirstUse, bodySchema: object) {
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.serializers } } });
  app.setValidatorCompiler(schemas.validators);
  app.post(
    '/echo',
    {
      schema: {
        body: bodySchema,
        response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    async (request) => ({ ...(request.body as object), secret: 'not in the response schema' }),
  );
  await app.ready();
  return app;
}

test('a schema that cannot compile passes the build and is caught by compileAll', async () => {
  const schemas = new SchemasCompiledOnFirstUse();
  const app = await appWithOneRoute(schemas, {
    type: 'object',
    properties: { name: { type: 'no-such-type' } },
  });
  try {
    assert.throws(() => schemas.compileAll(), /type/);
  } finally {
    await app.close();
  }
});

test('a deferred validator refuses what the schema refuses, and the serializer keeps to its schema', async () => {
  const schemas = new SchemasCompiledOnFirstUse();
  const app = await appWithOneRoute(schemas, {
    type: 'object',
    properties: { name: { type: 'string', maxLength: 5 } },
    required: ['name'],
    additionalProperties: false,
  });
  try {
    const refused = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'far too long' } });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.json().message, /must NOT have more than 5 characters/);
    const refusedAgain = await app.inject({ method: 'POST', url: '/echo', payload: { other: 1 } });
    assert.equal(refusedAgain.statusCode, 400);
    assert.match(refusedAgain.json().message, /required property 'name'/);
    const accepted = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'Ada' } });
    assert.equal(accepted.statusCode, 200);
    assert.deepEqual(accepted.json(), { name: 'Ada' });
  } finally {
    await app.close();
  }
});
