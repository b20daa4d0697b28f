// The control panel's Area B resources under /v1 (and its aliases): datastores and API keys, the
// maintenance switch and the audit log. JSON answers, {"detail"} errors, management scopes.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { auditOriginOf, principalOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, Page, PageQuery, security } from '../http/schemas.ts';
import type { DatastoreAdminService } from '../datastore/admin-service.ts';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import { PATTERN_HINT } from '../validation/messages.ts';

const DatastoreName = Type.String({
  pattern: DATASTORE_NAME,
  description: 'lower-case letters, digits, _ and -',
  [PATTERN_HINT]: 'be 1 to 63 lower-case letters, digits, _ and -, starting with a letter or a digit',
});
const Datastore = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});
const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  datastores: Type.Array(Type.String()),
  rate_limit_per_minute: Type.Union([Type.Integer(), Type.Null()], { description: 'null: the default, 60' }),
  created_at: Type.String({ format: 'date-time' }),
});
const Maintenance = Type.Object({
  enabled: Type.Boolean(),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
const AuditEntry = Type.Object({
  seq: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  action: Type.String(),
  datastore: Type.Union([Type.String(), Type.Null()]),
  entity_ids: Type.Array(Type.String()),
  actor: Type.String(),
  request_id: Type.Union([Type.String(), Type.Null()]),
  client_address: Type.Union([Type.String(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
  recipient: Type.Optional(Type.String({ description: 'the SAR recipient (stored sealed)' })),
});

export function datastoreManagementRoutes(admin: DatastoreAdminService): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: { name: string; description?: string } }>(
      '/datastore',
      {
        onRequest: app.authorize('datastore:*'),
        schema: {
          tags: ['datastores'],
          summary: 'Create a datastore (409 when the name is taken).',
          security,
          body: Type.Object(
            { name: DatastoreName, description: Type.Optional(Type.String({ maxLength: 1000 })) },
            { additionalProperties: false },
          ),
          response: { 201: Datastore, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(await admin.createDatastore(principalOf(request), request.body, auditOriginOf(request))),
    );

    app.get(
      '/datastore',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags: ['datastores'],
          summary: 'List datastores with their entity counts.',
          security,
          response: {
            200: Type.Array(
              Type.Intersect([
                Datastore,
                Type.Object({
                  entity_count: Type.Integer({ description: 'exact up to 100000' }),
                  entity_count_capped: Type.Boolean({ description: 'true: more entities than entity_count' }),
                  labels: Type.Record(Type.String(), Type.String(), {
                    description:
                      'display names the access report shows: an entity name, or <entity name>.<attribute>, to its label',
                  }),
                }),
              ]),
            ),
            ...managementErrors,
          },
        },
      },
      async () => admin.listDatastores(),
    );

    app.delete<{ Params: { name: string } }>(
      '/datastore/:name',
      {
        onRequest: app.authorize('datastore:*'),
        schema: {
          tags: ['datastores'],
          summary: 'Delete a datastore with every entity, attribute, file and index entry it holds.',
          security,
          params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await admin.deleteDatastore(principalOf(request), request.params.name, auditOriginOf(request));
        return reply.status(204).send();
      },
    );

    app.put<{ Params: { name: string }; Body: Record<string, string> }>(
      '/datastore/:name/labels',
      {
        onRequest: app.authorize('datastore:*'),
        schema: {
          tags: ['datastores'],
          summary:
            'Set the human labels of the datastore\'s entity names and attributes ({"users": "Your account", "users.email": "Email address"}), shown in access reports instead of the names; replaces the previous labels.',
          security,
          params: Type.Object({ name: Type.String({ maxLength: 100 }) }),
          body: Type.Record(
            Type.String({ minLength: 1, maxLength: 200 }),
            Type.String({ minLength: 1, maxLength: 200 }),
            {
              maxProperties: 500,
            },
          ),
          response: {
            200: Type.Object({ name: Type.String(), labels: Type.Record(Type.String(), Type.String()) }),
            404: ErrorDetail,
            ...managementErrors,
          },
        },
      },
      async (request) =>
        admin.setDatastoreLabels(
          principalOf(request),
          request.params.name,
          request.body,
          auditOriginOf(request),
        ),
    );

    app.post<{ Body: { name: string; datastores: string[]; rate_limit_per_minute?: number } }>(
      '/api-key',
      {
        onRequest: app.authorize('api-key:*'),
        schema: {
          tags: ['api keys'],
          summary: 'Issue an API key; the key is shown in this answer only.',
          security,
          body: Type.Object(
            {
              name: Type.String({ minLength: 1, maxLength: 200 }),
              datastores: Type.Array(Type.Union([DatastoreName, Type.Literal('*')]), {
                minItems: 1,
                maxItems: 1000,
              }),
              rate_limit_per_minute: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
            },
            { additionalProperties: false },
          ),
          response: {
            201: Type.Intersect([
              ApiKey,
              Type.Object({ key: Type.String({ description: 'lk_<id>_<secret>' }) }),
            ]),
            ...managementErrors,
          },
        },
      },
      async (request, reply) => {
        const issued = await admin.issueKey(principalOf(request), request.body, auditOriginOf(request));
        return reply.status(201).send(issued);
      },
    );

    app.get(
      '/api-key',
      {
        onRequest: app.authorize('api-key:read'),
        schema: {
          tags: ['api keys'],
          summary: 'List API keys (never the key nor its digest).',
          security,
          response: { 200: Type.Array(ApiKey), ...managementErrors },
        },
      },
      async () => admin.listKeys(),
    );

    app.delete<{ Params: { id: string } }>(
      '/api-key/:id',
      {
        onRequest: app.authorize('api-key:*'),
        schema: {
          tags: ['api keys'],
          summary: 'Revoke an API key at once.',
          security,
          params: Type.Object({ id: Type.String({ maxLength: 100 }) }),
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await admin.revokeKey(principalOf(request), request.params.id, auditOriginOf(request));
        return reply.status(204).send();
      },
    );

    app.get(
      '/maintenance',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags: ['datastores'],
          summary: 'Whether the subject data API is in maintenance.',
          security,
          response: { 200: Maintenance, ...managementErrors },
        },
      },
      async () => admin.maintenance(),
    );

    app.put<{ Body: { enabled: boolean } }>(
      '/maintenance',
      {
        onRequest: app.authorize('datastore:*'),
        schema: {
          tags: ['datastores'],
          summary: 'Switch maintenance mode: every /api endpoint answers 503 with Retry-After while enabled.',
          security,
          body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
          response: { 200: Maintenance, ...managementErrors },
        },
      },
      async (request) =>
        admin.setMaintenance(principalOf(request), request.body.enabled, auditOriginOf(request)),
    );

    app.get<{
      Querystring: {
        page: number;
        size: number;
        datastore?: string;
        entity_id?: string;
        action?: string;
        actor?: string;
        from?: string;
        to?: string;
      };
    }>(
      '/audit-log',
      {
        onRequest: app.authorize('audit-log:read'),
        schema: {
          tags: ['datastores'],
          summary:
            'The append-only audit log, newest first; filter by datastore, entity_id, action (or its family: connection), actor and time.',
          security,
          querystring: Type.Intersect([
            PageQuery,
            Type.Object({
              datastore: Type.Optional(Type.String({ maxLength: 100 })),
              entity_id: Type.Optional(Type.String({ maxLength: 200 })),
              action: Type.Optional(Type.String({ maxLength: 100 })),
              actor: Type.Optional(Type.String({ maxLength: 300 })),
              from: Type.Optional(Type.String({ format: 'date-time' })),
              to: Type.Optional(Type.String({ format: 'date-time' })),
            }),
          ]),
          response: { 200: Page(AuditEntry), ...managementErrors },
        },
      },
      async (request) => admin.auditLog(request.query),
    );
  };
}
