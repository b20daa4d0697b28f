// Finishes the generated OpenAPI document so that a client generator can trust it (DECISIONS.md, "An API a
// client generator can trust"): each step below owns one property of the document, and runs on every
// route, so a route added later is covered without editing a list.
import { hoistNamedSchemas, listNullInNullableEnums } from './components.ts';
import { nameOperations, TAGS } from './operations.ts';
import { completeResponses } from './responses.ts';

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: unknown }[];
  requestBody?: { required?: boolean; description?: string; content: Record<string, { schema?: unknown }> };
  responses: Record<string, OpenApiResponse>;
  [extension: `x-${string}`]: unknown;
}

export interface OpenApiResponse {
  description: string;
  content?: Record<string, { schema?: unknown }>;
  headers?: Record<string, unknown>;
}

export interface OpenApiDocument {
  openapi: string;
  tags?: { name: string; description: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas?: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  [key: string]: unknown;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document with its path and method. */
export function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => (HTTP_METHODS as readonly string[]).includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

export function finishDocument(document: OpenApiDocument): OpenApiDocument {
  nameOperations(document);
  completeResponses(document);
  listNullInNullableEnums(document);
  hoistNamedSchemas(document);
  const used = new Set(operationsOf(document).flatMap(({ operation }) => operation.tags ?? []));
  document.tags = TAGS.filter((tag) => used.has(tag.name));
  return document;
}
