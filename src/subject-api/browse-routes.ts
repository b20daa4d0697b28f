// HTTP face of the console's datastore browse (DatastoreBrowseService): a page of a datastore's entities
// with attribute names only, and GET …/entity/{id} for one entity's values, audited. Scope datastore:read.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import { auditOriginOf, principalOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, Page, security } from '../http/schemas.ts';
import { PATTERN_HINT } from '../validation/messages.ts';
import { type DatastoreBrowseService, MAX_BROWSE_PAGE_SIZE } from '../datastore/browse-service.ts';

const tags = ['datastores'];
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const DatastoreParams = Type.Object({
  name: Type.String({ pattern: DATASTORE_NAME, [PATTERN_HINT]: 'be a datastore name' }),
});
const EntityParams = Type.Object({
  name: Type.String({ pattern: DATASTORE_NAME, [PATTERN_HINT]: 'be a datastore name' }),
  id: Type.String({ pattern: UUID_PATTERN, [PATTERN_HINT]: 'be an entity id (a UUID)' }),
});

const BrowsedEntity = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  parents: Type.Array(Type.String()),
  attributes: Type.Array(Type.Object({ name: Type.String(), has_value: Type.Boolean() })),
  files: Type.Array(Type.Object({ name: Type.String(), size: Type.Integer() })),
});

const RevealedEntity = Type.Object({
  id: Type.String(),
  name: Type.String(),
  attributes: Type.Array(
    Type.Object({ name: Type.String(), value: Type.Union([Type.String(), Type.Null()]) }),
  ),
  files: Type.Array(
    Type.Object({
      name: Type.String(),
      file_name: Type.String(),
      content_type: Type.String(),
      size: Type.Integer(),
    }),
  ),
});

export function datastoreBrowseRoutes(browse: DatastoreBrowseService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { name: string }; Querystring: { page?: number; size?: number } }>(
      '/datastore/:name/entity',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags,
          summary: "A page of a datastore's entities, oldest first, with attribute names only (no value).",
          security,
          params: DatastoreParams,
          querystring: Type.Object(
            {
              page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
              size: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_BROWSE_PAGE_SIZE, default: 25 })),
            },
            { additionalProperties: false },
          ),
          response: {
            200: Type.Intersect([
              Page(BrowsedEntity),
              Type.Object({ total_capped: Type.Boolean({ description: 'true: more entities than total' }) }),
            ]),
            404: ErrorDetail,
            ...managementErrors,
          },
        },
      },
      async (request) =>
        browse.listEntities(request.params.name, request.query.page ?? 1, request.query.size ?? 25),
    );

    // A GET, like every read of subject data: revealing changes nothing, and its audit entry is the record
    // of a read (as /api/entity/get-by-id's is), written before the values are answered.
    app.get<{ Params: { name: string; id: string }; Querystring: { attribute?: string } }>(
      '/datastore/:name/entity/:id',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags,
          summary:
            "Reveal one entity's values, or one attribute's; audited (who, which entity), never the value.",
          security,
          params: EntityParams,
          querystring: Type.Object(
            { attribute: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
            { additionalProperties: false },
          ),
          response: { 200: RevealedEntity, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return browse.reveal(
          principalOf(request),
          auditOriginOf(request),
          request.params.name,
          request.params.id,
          request.query.attribute,
        );
      },
    );
  };
}
