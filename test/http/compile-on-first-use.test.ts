// Route schemas compiled on a route's first request, not at start (src/http/compile-on-first-use.ts): each
// one once, and the first request validated and serialized exactly as every later one. Start-up no longer
// proves that every schema compiles, so this file also does, on the real app.
import assert from 'node:assert/strict';
import AjvModule from 'ajv';
import Fastify, { type FastifySchemaCompiler } from 'fastify';
import { after, before, describe, it } from 'node:test';
import { SchemasCompiledOnFirstUse } from '../../src/http/compile-on-first-use.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const Ajv = AjvModule.default;

function appWithCountedCompiles(nameSchema: object = { type: 'string', minLength: 2 }) {
  const schemas = new SchemasCompiledOnFirstUse();
  const ajv = new Ajv({ coerceTypes: true });
  const compiled: string[] = [];
  const counted: FastifySchemaCompiler<unknown> = ({ schema, url }) => {
    compiled.push(url);
    return ajv.compile(schema as object);
  };
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: schemas.serializers } } });
  app.setValidatorCompiler(schemas.validators(counted));
  app.post('/count', { schema: { body: { type: 'integer' } } }, async (request) => ({
    body: request.body,
    type: typeof request.body,
  }));
  app.post(
    '/named',
    {
      schema: {
        body: { type: 'object', required: ['name'], properties: { name: nameSchema } },
        response: { 200: { type: 'object', properties: { name: { type: 'string' } } } },
      },
    },
    async (request) => ({ ...(request.body as object), secret: 'not in the schema' }),
  );
  return { app, compiled, schemas };
}

describe('schemas compiled on first use', () => {
  it('compiles no validator at start, then each route once, on its first request', async () => {
    const { app, compiled } = appWithCountedCompiles();
    await app.ready();
    assert.deepEqual(compiled, []);

    for (let call = 0; call < 3; call += 1) {
      const response = await app.inject({ method: 'POST', url: '/named', payload: { name: 'Ada' } });
      assert.equal(response.statusCode, 200);
    }
    assert.deepEqual(compiled, ['/named']);
    await app.close();
  });

  it("answers the first request's validation errors like any later one's", async () => {
    const { app } = appWithCountedCompiles();
    const answers = [];
    for (let call = 0; call < 2; call += 1) {
      const response = await app.inject({ method: 'POST', url: '/named', payload: { name: 'A' } });
      answers.push([response.statusCode, response.json<{ message: string }>().message]);
    }
    assert.deepEqual(answers[0], [400, 'body/name must NOT have fewer than 2 characters']);
    assert.deepEqual(answers[1], answers[0]);
    await app.close();
  });

  it("coerces a root value on the first request (Ajv's schemaEnv read before the call)", async () => {
    const { app } = appWithCountedCompiles();
    const response = await app.inject({
      method: 'POST',
      url: '/count',
      headers: { 'content-type': 'application/json' },
      payload: '"42"',
    });
    assert.deepEqual(response.json(), { body: 42, type: 'number' });
    await app.close();
  });

  it('serializes the first answer by its schema (fields outside it left out)', async () => {
    const { app } = appWithCountedCompiles();
    const response = await app.inject({ method: 'POST', url: '/named', payload: { name: 'Ada' } });
    assert.equal(response.body, '{"name":"Ada"}');
    await app.close();
  });

  it('compileAll compiles what no request has used yet, and throws for a schema that cannot compile', async () => {
    const good = appWithCountedCompiles();
    await good.app.ready();
    good.schemas.compileAll();
    assert.deepEqual(good.compiled.sort(), ['/count', '/named']);
    await good.app.close();

    const bad = appWithCountedCompiles({ type: 'no-such-type' });
    await bad.app.ready();
    assert.throws(() => bad.schemas.compileAll(), /type/);
    await bad.app.close();
  });
});

describe("the service's own routes", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('compile, every validator and serializer', () => {
    assert.ok(service.app);
    assert.doesNotThrow(() => service.app?.compileAllSchemas());
  });
});
