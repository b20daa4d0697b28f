// Route schemas compiled on their first use instead of when the app is built. Compiling the validators
// and serializers of every route up front was most of the app's start-up CPU (about a second on this
// project's CI machine, paid by the service, by every `lethe` command that builds the app and by every test
// file) and kept compiled code in memory for routes an installation never calls. Answers are still
// written by fast-json-stringify from each route's response schemas, as Fastify does by default.
//
// A schema that cannot compile would now fail at its first request rather than at start, so every
// compilation deferred here is also kept, and `compileAll` runs them: test/http/schema-compilation.test.ts
// calls it on the real app.
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { compileValidator } from './validation.ts';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (SchemasCompiledOnFirstUse.compileAll). */
    compileAllSchemas(): void;
  }
}

export class SchemasCompiledOnFirstUse {
  private readonly deferred: Array<() => unknown> = [];

  /** Fastify's validator compiler; Fastify reads a failed check's `errors` off the function it gets. */
  readonly validators: FastifySchemaCompiler<unknown> = (route) => {
    const compiled = this.defer(() => compileValidator(route) as ValidateFunction);
    const validate = (value: unknown) => {
      const check = compiled();
      const valid = check(value);
      validate.errors = check.errors;
      return valid;
    };
    validate.errors = undefined as ValidateFunction['errors'];
    return validate;
  };

  /** Fastify's serializer factory (`schemaController.compilersFactory.buildSerializer`). */
  readonly serializers: SerializerFactory = (externalSchemas, options) => {
    const compile = SerializerSelector()(externalSchemas, options);
    return (route) => {
      const compiled = this.defer(() => compile(route));
      return (document) => compiled()(document);
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
