// Every status the server can answer, documented with its body, and every response described. The
// statuses added here come from the framework and the shared error handler, not from a route: a body over
// 1 MiB (413), a content type no parser takes (415), a path parameter over 100 characters (414), a
// malformed body or percent-encoding (400), a failed schema check (422), the credentials (401, 403), and
// the database or a shutdown (503). JSON errors are {"detail"}; Area B's (/api, not /api/v1) are text/plain.
import { ERROR_REF } from './components.ts';
import {
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiResponse,
  operationsOf,
} from './document.ts';

const DESCRIPTIONS: Record<string, string> = {
  '200': 'Done; the answer below.',
  '201': 'Created; the answer below.',
  '203': 'Processed; each item answers its own result.',
  '204': 'Done; no body.',
  '400':
    'The request is malformed: unreadable JSON, a malformed percent-encoding in the path, or a bad header.',
  '401': 'No valid credentials (see the security schemes).',
  '403': 'The credentials do not allow this call.',
  '404': 'Not found: what the path names does not exist.',
  '409': 'Conflicts with the current state; the detail says how.',
  '413': 'The request body is larger than the limit (1 MiB; uploads: LETHE_MAX_FILE_BYTES).',
  '414': 'A path parameter is longer than 100 characters.',
  '415': 'The content type of the body is not accepted, or is malformed.',
  '422': 'A value is invalid; the detail names the field.',
  '429': 'Too many requests, or too many failed authentications from this address; see Retry-After.',
  '503': 'Unavailable: the database is down, maintenance mode is on, or the service is shutting down.',
};

const plainError = (description: string): OpenApiResponse => ({
  description,
  content: { 'text/plain': { schema: { type: 'string' } } },
});
const jsonError = (description: string): OpenApiResponse => ({
  description,
  content: { 'application/json': { schema: { $ref: ERROR_REF } } },
});

/** The statuses the framework and the shared handlers can answer for this operation. */
function frameworkStatuses(path: string, operation: OpenApiOperation, plain: boolean): string[] {
  const hasParams = path.includes('{');
  const hasBody = operation.requestBody !== undefined;
  const hasInput = hasParams || hasBody || (operation.parameters ?? []).length > 0;
  const guarded = (operation.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
  return [
    '400',
    ...(hasParams ? ['404', '414'] : []),
    // Every method may carry a body (GET too, for Area B), so any call can be too large or of a type no
    // parser takes (Area B parses every well-formed type itself, answering 400; a malformed one is 415).
    '413',
    '415',
    ...(hasInput && !plain ? ['422'] : []),
    ...(guarded ? ['401', '403'] : []),
    '503',
  ];
}

export function completeResponses(document: OpenApiDocument) {
  for (const { path, operation } of operationsOf(document)) {
    const plain = path.startsWith('/api/') && !path.startsWith('/api/v1/');
    if (operation['x-body-optional'] === true && operation.requestBody)
      operation.requestBody.required = false;
    delete operation['x-body-optional'];
    for (const status of frameworkStatuses(path, operation, plain)) {
      if (operation.responses[status]) continue;
      const description = DESCRIPTIONS[status] as string;
      operation.responses[status] = plain ? plainError(description) : jsonError(description);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      if (response.description === 'Default Response' || response.description === '')
        response.description = DESCRIPTIONS[status] ?? `HTTP ${status}.`;
    }
    operation.responses = Object.fromEntries(
      Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b)),
    );
  }
}
