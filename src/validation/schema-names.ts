// Names for shared schema shapes, read by the OpenAPI document only: the domains' schema modules mark their
// shapes here without depending on the HTTP kit (a command-line listing loads those modules, not HTTP).

/** The key `named()` marks a schema with; the OpenAPI document hoists it (src/http/openapi/components.ts). */
export const SCHEMA_NAME = 'x-schema-name';

/**
 * Marks a shared shape so that the OpenAPI document names it under components.schemas and refers to it
 * with $ref (a generated client then has one `Policy` type instead of one per operation). Validation and
 * serialization ignore the mark.
 */
export function named<T extends object>(name: string, schema: T): T {
  return Object.assign(schema, { [SCHEMA_NAME]: name });
}
