// `GET|PUT /v1/datastore/{name}/identities` (and its aliases): which attributes of a datastore hold which
// identity kind, as privacy requests match them (docs/area-b.md). HTTP shape only; the rules are in
// identity-attributes.ts and the service.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { auditOriginOf, principalOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { IdentityAttributesService } from '../datastore/identity-attributes-service.ts';
import { MAX_ATTRIBUTES_PER_KIND, MAX_IDENTITY_KINDS } from '../datastore/identity-attributes.ts';

const Params = Type.Object({ name: Type.String({ maxLength: 100 }) });
const DECLARATION =
  `{kind: ["table.attribute", ...]}: kind is email, phone_number or a custom identity key; at most ` +
  `${MAX_IDENTITY_KINDS} kinds of ${MAX_ATTRIBUTES_PER_KIND} names. {} goes back to the default.`;
const IdentityAttributes = Type.Object({
  datastore: Type.String(),
  declared: Type.Boolean({
    description: 'false: nothing declared, identities shows the default (* = any table)',
  }),
  identities: Type.Record(Type.String(), Type.Array(Type.String())),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

export function identityAttributesRoutes(identities: IdentityAttributesService): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { name: string } }>(
      '/datastore/:name/identities',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags: ['datastores'],
          summary: "The datastore's identity attributes: declared, or the default.",
          security,
          params: Params,
          response: { 200: IdentityAttributes, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => identities.read(request.params.name),
    );

    app.put<{ Params: { name: string }; Body: unknown }>(
      '/datastore/:name/identities',
      {
        onRequest: app.authorize('datastore:update'),
        schema: {
          tags: ['datastores'],
          summary:
            'Declare which attributes hold which identity kind; a privacy request matches an entity only through them.',
          security,
          params: Params,
          body: Type.Object(
            {},
            {
              description: DECLARATION,
              maxProperties: MAX_IDENTITY_KINDS,
              additionalProperties: Type.Array(
                Type.String({ maxLength: 257, description: 'a <table>.<attribute> name' }),
                { maxItems: MAX_ATTRIBUTES_PER_KIND },
              ),
            },
          ),
          response: { 200: IdentityAttributes, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) =>
        identities.declare(principalOf(request), request.params.name, request.body, auditOriginOf(request)),
    );
  };
}
