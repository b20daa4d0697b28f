// Roles over HTTP: GET /v1/role (user:read) lists the built-in and custom roles; PUT and DELETE
// /v1/role/{name} (user:*) define and remove custom roles, each a named set of scopes.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { SCOPES } from '../auth/scopes.ts';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { MAX_ROLE_DESCRIPTION_LENGTH, type RoleService } from './role-service.ts';

const Role = Type.Object({
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  description: Type.String(),
  built_in: Type.Boolean(),
  updated_by: Type.Union([Type.String(), Type.Null()]),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const RoleDefinition = Type.Object(
  {
    scopes: Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))), {
      minItems: 1,
      maxItems: SCOPES.length,
    }),
    description: Type.Optional(Type.String({ maxLength: MAX_ROLE_DESCRIPTION_LENGTH })),
  },
  { additionalProperties: false },
);

const RoleParams = Type.Object({ name: Type.String({ maxLength: 63 }) });

export function roleRoutes(roles: RoleService): FastifyPluginAsync {
  return async (app) => {
    app.get(
      '/role',
      {
        onRequest: app.authorize('user:read'),
        schema: {
          tags: ['operators'],
          summary: 'List the roles: the four built in, then the custom ones, each with its scopes.',
          security,
          response: { 200: Type.Array(Role), ...managementErrors },
        },
      },
      async () => roles.list(),
    );

    app.put<{ Params: { name: string }; Body: Type.Static<typeof RoleDefinition> }>(
      '/role/:name',
      {
        onRequest: app.authorize('user:*'),
        schema: {
          tags: ['operators'],
          summary:
            'Define or change a custom role: a named set of scopes (at most your own); its holders get the new scopes at once.',
          security,
          params: RoleParams,
          body: RoleDefinition,
          response: { 200: Role, 201: Role, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        const { role, created } = await roles.put(changeActorOf(request), request.params.name, request.body);
        return reply.status(created ? 201 : 200).send(role);
      },
    );

    app.delete<{ Params: { name: string } }>(
      '/role/:name',
      {
        onRequest: app.authorize('user:*'),
        schema: {
          tags: ['operators'],
          summary: 'Delete a custom role that no operator holds.',
          security,
          params: RoleParams,
          response: { 204: Type.Null(), 404: ErrorDetail, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await roles.remove(changeActorOf(request), request.params.name);
        return reply.status(204).send();
      },
    );
  };
}
