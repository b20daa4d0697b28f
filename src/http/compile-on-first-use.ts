// Fastify compiles every route's schemas when the app starts: a serializer per response status and a
// validator per request part, some 500 generated functions. Compiling them was most of the app's start-up
// CPU (about a second on this project's CI machine, paid by the service, by every `lethe` command that
// builds the app and by every test file), and their source text and code held 27 MB of the service's heap
// after start (bench/README.md, issue 29), for routes that a deployment calls rarely or never. These
// compilers compile a route's schema on its first request instead, with the same compilers.
//
// A schema that cannot compile would now fail its route's first request (500) rather than the start, so
// every compilation deferred here is also kept, and `compileAll` runs them:
// test/http/compile-on-first-use.test.ts calls it on the real app.
import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (SchemasCompiledOnFirstUse.compileAll). */
    compileAllSchemas(): void;
  }
}

/**
 * What Fastify does with a validator: calls it (with the parent of the data, for Ajv's), reads its errors
 * and Ajv's schemaEnv.
 */
type Validator = ReturnType<FastifySchemaCompiler<unknown>> & {
  (data: unknown, parent?: object): ReturnType<ReturnType<FastifySchemaCompiler<unknown>>>;
  schemaEnv?: unknown;
};

export class SchemasCompiledOnFirstUse {
  private readonly deferred: Array<() => unknown> = [];

  /**
   * `compiler`, compiling each schema on first use. Fastify reads a validator's `schemaEnv` (Ajv's) before
   * calling it, to pass the parent that lets Ajv coerce a root value: reading it compiles, so that the
   * first call is made like every later one.
   */
  validators(compiler: FastifySchemaCompiler<unknown>): FastifySchemaCompiler<unknown> {
    return (route) => {
      const validator = this.defer(() => compiler(route) as Validator);
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
  readonly serializers: SerializerFactory = (externalSchemas, options) => {
    const compiler = SerializerSelector()(externalSchemas, options);
    return (route) => {
      const serializer = this.defer(() => compiler(route));
      return (data) => serializer()(data);
    };
  };

  /** Compiles every schema not compiled yet; throws what the first that cannot compile throws. */
  compileAll(): void {
    for (const compiled of this.deferred) compiled();
  }

  private defer<T>(compile: () => T): () => T {
    let result: T | undefined;
    const compiled = () => (result ??= compile());
    this.deferred.push(compiled);
    return compiled;
  }
}
