// Named shapes under components.schemas, referenced with $ref: a schema marked with `named()`
// (src/http/schemas.ts) is hoisted under its name wherever it appears, and every inline {"detail"} error
// becomes a $ref to Error. Also states nullable enums the way OpenAPI 3.0.3 reads them (an enum with
// `nullable: true` lists null, or strict validators refuse the null the server answers).
import { SCHEMA_NAME } from '../../validation/schema-names.ts';
import type { OpenApiDocument } from './document.ts';

export const ERROR_REF = '#/components/schemas/Error';

const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every JSON error: one sentence saying what was wrong, naming the field where one was.',
  properties: { detail: { type: 'string' } },
  required: ['detail'],
};

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

function isErrorShape(node: Node): boolean {
  const keys = Object.keys(node).filter((key) => key !== 'description' && key !== 'title');
  return (
    keys.length === 3 &&
    node.type === 'object' &&
    JSON.stringify(node.properties) === JSON.stringify(ERROR_SCHEMA.properties) &&
    JSON.stringify(node.required) === JSON.stringify(ERROR_SCHEMA.required)
  );
}

/** Rewrites `value` bottom-up; `visit` may replace a node by what it returns. */
function rewrite(value: unknown, visit: (node: Node) => unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => rewrite(item, visit));
  if (!isNode(value)) return value;
  for (const [key, inner] of Object.entries(value)) value[key] = rewrite(inner, visit);
  return visit(value);
}

export function hoistNamedSchemas(document: OpenApiDocument) {
  const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA, ...document.components.schemas };
  const conflicts = new Set<string>();
  const hoist = (node: Node): unknown => {
    const name = node[SCHEMA_NAME];
    if (typeof name === 'string') {
      delete node[SCHEMA_NAME];
      const known = schemas[name];
      if (known === undefined) schemas[name] = node;
      else if (JSON.stringify(known) !== JSON.stringify(node)) {
        // Two shapes under one name (a route changed a named shape): keep this one inline.
        conflicts.add(name);
        return node;
      }
      return { $ref: `#/components/schemas/${name}` };
    }
    if (node.type === 'object' && isErrorShape(node)) return { $ref: ERROR_REF };
    return node;
  };
  document.paths = rewrite(document.paths, hoist) as OpenApiDocument['paths'];
  document.components.schemas = Object.fromEntries(
    Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)),
  );
  if (conflicts.size > 0) document['x-inline-conflicts'] = [...conflicts].sort();
}

export function listNullInNullableEnums(document: OpenApiDocument) {
  rewrite(document, (node) => {
    if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null);
    return node;
  });
}
