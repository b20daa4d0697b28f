// The SCIM protocol's shared parts (RFC 7644): schema URNs, the error in SCIM's shape, and the parsing of
// request bodies, PatchOps, filters and paging that Users and Groups both use. No database, no HTTP here.
import type { AuditOrigin } from '../audit/audit-log.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const MAX_RESULTS = 200;

/** An error in SCIM's shape (RFC 7644 section 3.12). */
export class ScimError extends Error {
  override name = 'ScimError';
  readonly status: number;
  readonly scimType: string | undefined;

  constructor(status: number, detail: string, scimType?: string) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
export const notFound = (what: string, id: string) =>
  new ScimError(404, `No ${what} with id ${id.slice(0, 100)}.`);

export type Json = Record<string, unknown>;

export interface ScimCaller {
  /** The audit's actor: `client:<id>` of the provider's client. */
  actor: string;
  origin: AuditOrigin;
  /** Where the resources live (`<public url>/scim/v2`), for meta.location. */
  base: string;
}

export interface ListQuery {
  filter?: string;
  startIndex?: number;
  count?: number;
  excludedAttributes?: string;
}

export function requireSchema(body: Json, schema: string) {
  if (!Array.isArray(body.schemas) || !body.schemas.includes(schema)) {
    throw new ScimError(400, `The body's schemas must include ${schema}.`, 'invalidSyntax');
  }
}

export function objectValue(value: unknown, message: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidValue(message);
  return value as Json;
}

export function optionalText(value: unknown, name: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > 500)
    throw invalidValue(`${name} must be a string of at most 500 characters.`);
  return value;
}

export function patchOperations(
  body: Json,
): { op: 'add' | 'replace' | 'remove'; path?: string; value?: unknown }[] {
  const operations = body.Operations;
  if (!Array.isArray(operations) || operations.length === 0 || operations.length > 100) {
    throw new ScimError(400, 'Operations must list 1 to 100 operations.', 'invalidSyntax');
  }
  return operations.map((entry: unknown) => {
    const operation = objectValue(entry, 'Each operation must be an object with op, path and value.');
    const op = typeof operation.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimError(400, 'op must be add, replace or remove.', 'invalidSyntax');
    }
    if (operation.path !== undefined && typeof operation.path !== 'string') {
      throw new ScimError(400, 'path must be a string.', 'invalidPath');
    }
    if (op === 'remove' && operation.path === undefined) {
      throw new ScimError(400, 'A remove operation needs a path.', 'noTarget');
    }
    return { op, path: operation.path as string | undefined, value: operation.value };
  });
}

/** The value of a supported filter (`<attribute> eq "<value>"`); 400 invalidFilter for anything else. */
export function parseFilter(filter: string | undefined, attribute: string): string | undefined {
  if (filter === undefined || filter.trim() === '') return undefined;
  const match = /^\s*(\w+)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i.exec(filter);
  if (!match || match[1]?.toLowerCase() !== attribute.toLowerCase()) {
    throw new ScimError(
      400,
      `Only the filter ${attribute} eq "<value>" is supported here; got: ${filter.slice(0, 100)}`,
      'invalidFilter',
    );
  }
  return (match[2] as string).replace(/\\(.)/g, '$1');
}

export function paging(query: ListQuery) {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const limit = Math.min(MAX_RESULTS, Math.max(0, query.count ?? 100));
  return { startIndex, offset: startIndex - 1, limit };
}

export function listResponse(resources: Json[], total: number, startIndex: number): Json {
  return {
    schemas: [LIST_SCHEMA],
    totalResults: total,
    startIndex,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
