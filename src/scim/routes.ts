// SCIM 2.0 over HTTP at /scim/v2 (RFC 7644): Users, Groups and the discovery endpoints, for a bearer token
// of a client holding the scope `scim`. Bodies and answers are application/scim+json; every error, the
// 401 and 403 of the guard included, answers in SCIM's error shape. SCIM describes itself (/Schemas,
// /ResourceTypes), so these routes stay out of the OpenAPI document.
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../errors.ts';
import { auditActor } from '../auth/scopes.ts';
import { auditOriginOf, principalOf } from '../http/authorize.ts';
import { resourceTypeOf, resourceTypes, schemaOf, schemas, serviceProviderConfig } from './discovery.ts';
import { ERROR_SCHEMA, type ListQuery, type ScimCaller, ScimError } from './protocol.ts';
import type { ScimService } from './service.ts';

const STATUS_BY_KIND: Record<string, number> = {
  bad_request: 400,
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  too_many_requests: 429,
};

type Body = Record<string, unknown>;

function send(reply: FastifyReply, status: number, body: unknown) {
  return reply.status(status).type('application/scim+json; charset=utf-8').send(JSON.stringify(body));
}

function errorBody(status: number, detail: string, scimType?: string) {
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail };
}

function listQuery(request: FastifyRequest): ListQuery {
  const query = request.query as Record<string, string | undefined>;
  const number = (name: string) => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    if (!/^\d{1,9}$/.test(raw)) throw new ScimError(400, `${name} must be a whole number.`, 'invalidValue');
    return Number(raw);
  };
  return {
    filter: query.filter,
    startIndex: number('startIndex'),
    count: number('count'),
    excludedAttributes: query.excludedAttributes,
  };
}

export function scimRoutes(deps: { scim: ScimService; base: () => string }): FastifyPluginAsync {
  const { scim } = deps;
  return async (app) => {
    app.addContentTypeParser(
      'application/scim+json',
      { parseAs: 'string', bodyLimit: 1024 * 1024 },
      (_request, body, done) => {
        try {
          const parsed: unknown = JSON.parse(body as string);
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            done(new ScimError(400, 'The body must be a JSON object.', 'invalidSyntax'), undefined);
            return;
          }
          done(null, parsed);
        } catch {
          done(new ScimError(400, 'The body is not valid JSON.', 'invalidSyntax'), undefined);
        }
      },
    );
    app.setErrorHandler((error: FastifyError | ScimError | DomainError, request, reply) => {
      if (error instanceof ScimError)
        return send(reply, error.status, errorBody(error.status, error.message, error.scimType));
      if (error instanceof DomainError) {
        const status = STATUS_BY_KIND[error.kind] ?? 400;
        if (status === 401) reply.header('www-authenticate', 'Bearer');
        return send(reply, status, errorBody(status, error.message));
      }
      const status = (error as FastifyError).statusCode ?? 500;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        return send(reply, 500, errorBody(500, 'Internal server error; try again later.'));
      }
      return send(reply, status, errorBody(status, error.message));
    });
    app.setNotFoundHandler((request, reply) =>
      send(reply, 404, errorBody(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}.`)),
    );
    app.addHook('onRequest', app.authorize('scim'));

    const caller = (request: FastifyRequest): ScimCaller => ({
      actor: auditActor(principalOf(request)),
      origin: auditOriginOf(request),
      base: deps.base(),
    });
    const hidden = { schema: { hide: true } };
    type WithId = { Params: { id: string }; Body: Body };

    app.get('/ServiceProviderConfig', hidden, async (_request, reply) =>
      send(reply, 200, serviceProviderConfig(deps.base())),
    );
    app.get('/ResourceTypes', hidden, async (_request, reply) =>
      send(reply, 200, resourceTypes(deps.base())),
    );
    app.get<WithId>('/ResourceTypes/:id', hidden, async (request, reply) => {
      const found = resourceTypeOf(deps.base(), request.params.id);
      if (!found) throw new ScimError(404, `No resource type ${request.params.id.slice(0, 100)}.`);
      return send(reply, 200, found);
    });
    app.get('/Schemas', hidden, async (_request, reply) => send(reply, 200, schemas(deps.base())));
    app.get<WithId>('/Schemas/:id', hidden, async (request, reply) => {
      const found = schemaOf(deps.base(), request.params.id);
      if (!found) throw new ScimError(404, `No schema ${request.params.id.slice(0, 200)}.`);
      return send(reply, 200, found);
    });

    // Users and Groups answer the same verbs (RFC 7644 section 3), Users registered first.
    const resources = [
      ['/Users', scim.users],
      ['/Groups', scim.groups],
    ] as const;
    for (const [path, resource] of resources) {
      app.post<{ Body: Body }>(path, hidden, async (request, reply) => {
        const created = await resource.create(caller(request), request.body ?? {});
        reply.header('location', (created.meta as { location: string }).location);
        return send(reply, 201, created);
      });
      app.get(path, hidden, async (request, reply) =>
        send(reply, 200, await resource.list(caller(request), listQuery(request))),
      );
      app.get<WithId>(`${path}/:id`, hidden, async (request, reply) =>
        send(reply, 200, await resource.get(caller(request), request.params.id)),
      );
      app.put<WithId>(`${path}/:id`, hidden, async (request, reply) =>
        send(reply, 200, await resource.replace(caller(request), request.params.id, request.body ?? {})),
      );
      app.patch<WithId>(`${path}/:id`, hidden, async (request, reply) =>
        send(reply, 200, await resource.patch(caller(request), request.params.id, request.body ?? {})),
      );
      app.delete<WithId>(`${path}/:id`, hidden, async (request, reply) => {
        await resource.remove(caller(request), request.params.id);
        return reply.status(204).send();
      });
    }
  };
}
