// Fastify compiles every route's schemas when the app starts: a serializer per response status and a
// validator per request part, some 500 generated functions. Their source text and code held 27 MB of
// the service's heap after start (bench/README.md, issue 29), for routes that a deployment calls rarely or
// never. These compilers compile a route's schema on its first request instead, with the same compilers.
// Tests and the OpenAPI document still read every schema; a schema that does not compile fails its route's
// first request (500) rather than the start.
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * What Fastify does with a validator: calls it (with the parent of the data, for Ajv's), reads its errors
 * and Ajv's schemaEnv.
 */
type Validator = ReturnType<FastifySchemaCompiler<unknown>> & {
  (data: unknown, parent?: object): ReturnType<ReturnType<FastifySchemaCompiler<unknown>>>;
  schemaEnv?: unknown;
};

/**
 * `compiler`, compiling each schema on first use. Fastify reads a validator's `schemaEnv` (Ajv's) before
 * calling it, to pass the parent that lets Ajv coerce a root value: reading it compiles, so that the first
 * call is made like every later one.
 */
export function validateOnFirstUse(compiler: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
  return (route) => {
    let compiled: Validator | undefined;
    const validator = () => (compiled ??= compiler(route) as Validator);
    const validate: Validator = (data: unknown, parent?: object) => {
      const answer = validator()(data, parent);
      validate.errors = validator().errors;
      return answer;
    };
    Object.defineProperty(validate, 'schemaEnv', { get: () => validator().schemaEnv });
    return validate;
  };
}

/** Fastify's own serializer compiler (fast-json-stringify), compiling each response schema on first use. */
export const serializeOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compiler = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let compiled: ((data: unknown) => string) | undefined;
    return (data) => (compiled ??= compiler(route))(data);
  };
};
