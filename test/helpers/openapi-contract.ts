// Checks real answers against /openapi.json: the operation a call reached, whether its status is
// documented, whether the answer's content type is one the document lists, and whether the body validates
// (Ajv) against the documented schema. startTestService(..., { checkAnswers: true }) checks every answer
// of a test file this way; test/openapi/ uses it directly.
import assert from 'node:assert/strict';
import AjvModule, { type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { CallResult } from './service.ts';

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;

type Schema = Record<string, unknown>;
export interface Operation {
  operationId: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApi {
  openapi: string;
  info: Record<string, unknown>;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
  [key: string]: unknown;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Pages and files outside the JSON API (the document itself, Swagger UI, the console and the public pages). */
// SCIM describes itself (/scim/v2/Schemas, RFC 7644 section 4) and answers application/scim+json.
const UNDOCUMENTED = ['/openapi.json', '/docs', '/', '/console', '/privacy-center', '/scim/v2'];

export function operations(document: OpenApi) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

export class Contract {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; path: string; pattern: RegExp; params: number }[];
  /** `METHOD path` of every operation a checked call reached, with the statuses it answered. */
  readonly reached = new Map<string, Set<number>>();

  readonly document: OpenApi;

  constructor(document: OpenApi) {
    this.document = document;
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components });
    this.templates = operations(document).map(({ path, method }) => ({
      method,
      path,
      pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^{}]+\}/g, '[^/]*')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }));
  }

  /** The documented operation `method url` reaches; literal paths win over templated ones. */
  find(method: string, url: string) {
    const path = url.split('?')[0] as string;
    const matches = this.templates
      .filter((template) => template.method === method.toLowerCase() && template.pattern.test(path))
      .sort((a, b) => a.params - b.params);
    const match = matches[0];
    if (!match) return undefined;
    return { path: match.path, operation: this.document.paths[match.path]![match.method]! };
  }

  private validator(schema: Schema): ValidateFunction {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = this.validators.get(text);
    if (!validate) {
      validate = this.ajv.compile(JSON.parse(text) as Schema);
      this.validators.set(text, validate);
    }
    return validate;
  }

  /** Fails unless `answer` is what the document says `method url` answers. */
  check(method: string, url: string, answer: CallResult, withBody = true): void {
    const label = `${method} ${url.slice(0, 120)} -> ${answer.status}`;
    // HEAD answers as GET does, without a body.
    if (method.toUpperCase() === 'HEAD') {
      assert.equal(answer.text, '', label);
      this.check('GET', url, { ...answer, text: '', headers: new Headers() }, false);
      return;
    }
    // The hyphenated webhook timings answer as the documented `pre_execution` / `post_execution` do.
    const path = (url.split('?')[0] as string).replace(/\/(pre|post)-execution(?=\/|$)/, '/$1_execution');
    // The /api/v1 and bare aliases of /v1 answer as their /v1 twin does.
    const found =
      this.find(method, path) ??
      this.find(method, path.replace(/^\/api\/v1\//, '/v1/')) ??
      this.find(method, `/v1${path}`);
    if (!found) {
      if (UNDOCUMENTED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return;
      // A path no route takes: the not-found handler's {detail}, a router refusal, or a body refused.
      const refusals = [400, 401, 404, 405, 413, 414, 415];
      assert.ok(refusals.includes(answer.status), `${label}: no documented operation`);
      if (withBody && (!path.startsWith('/api/') || path.startsWith('/api/v1/')))
        assert.deepEqual(Object.keys(JSON.parse(answer.text)), ['detail'], label);
      return;
    }
    const key = `${method.toUpperCase()} ${found.path}`;
    if (!this.reached.has(key)) this.reached.set(key, new Set());
    this.reached.get(key)!.add(answer.status);
    const response = found.operation.responses[String(answer.status)];
    assert.ok(response, `${label}: status not documented (${answer.text.slice(0, 200)})`);
    if (!withBody) return;
    const type = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!response.content) {
      assert.equal(answer.text, '', `${label}: a body where none is documented`);
      return;
    }
    if (answer.text === '' && answer.status === 204) return;
    // A media range (`*/*`, `image/*`) takes the types it covers, as OpenAPI says.
    const media =
      response.content[type] ?? response.content[`${type.split('/')[0]}/*`] ?? response.content['*/*'];
    assert.ok(media, `${label}: content type ${type} not documented (${Object.keys(response.content)})`);
    if (!media.schema) return;
    const body = type.includes('json') ? JSON.parse(answer.text) : answer.text;
    const validate = this.validator(media.schema);
    assert.ok(
      validate(body),
      `${label}: the body does not match the document: ${this.ajv.errorsText(validate.errors)}; body ${answer.text.slice(0, 300)}`,
    );
  }
}
