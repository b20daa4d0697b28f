// The shape of the OpenAPI document as the finishing steps read and change it, and the walk over its
// operations that each step shares.

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
