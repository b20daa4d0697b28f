import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { badRequest, DomainError } from '../errors.ts';
import { auditOriginOf, bearerToken, changeActorOf, principalOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { SCOPE_DESCRIPTIONS, SCOPES } from './scopes.ts';
import { type AuthService, InvalidScopeError } from './service.ts';

const TokenRequest = Type.Object({
  grant_type: Type.Literal('client_credentials'),
  client_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  scope: Type.Optional(Type.String({ maxLength: 2000 })),
});

/** A malformed request; `error: invalid_scope` (RFC 6749 section 5.2) when the scope is the problem. */
const TokenRequestError = Type.Object({
  error: Type.Optional(Type.Literal('invalid_scope')),
  detail: Type.String(),
});

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  scope: Type.String(),
});

const Client = Type.Object({
  client_id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  acts_for: Type.String({
    description:
      'The person this client acts for (`user:<username>` of the operator who made it): two-person rules count the client as that person.',
  }),
  disabled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the client was disabled (its operator was deactivated); a disabled client gets no token.',
  }),
  created_at: Type.String({ format: 'date-time' }),
});

/**
 * RFC 6749 section 2.3.1: client credentials may also come as HTTP Basic, each part form-urlencoded. A
 * part that does not decode (`%zz`) is the caller's mistake: 400, never a 500.
 */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = header ? /^Basic\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon)),
      secret: decodeURIComponent(decoded.slice(colon + 1)),
    };
  } catch {
    throw badRequest('The Authorization: Basic credentials are not valid form-urlencoded text.');
  }
}

export function authRoutes({ auth }: { auth: AuthService }): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: Type.Static<typeof TokenRequest> }>(
      '/oauth/token',
      {
        schema: {
          tags: ['management auth'],
          summary: 'Exchange client credentials for an access token (form or JSON body).',
          body: TokenRequest,
          consumes: ['application/x-www-form-urlencoded', 'application/json'],
          response: {
            200: TokenResponse,
            400: TokenRequestError,
            401: ErrorDetail,
            422: ErrorDetail,
            429: ErrorDetail,
          },
        },
      },
      async (request, reply) => {
        await app.addressThrottle.assertNotBlocked(request, reply);
        const basic = basicCredentials(request.headers.authorization);
        const id = request.body.client_id ?? basic?.id;
        const secret = request.body.client_secret ?? basic?.secret;
        if (!id || !secret) {
          return reply
            .status(401)
            .header('www-authenticate', 'Basic')
            .send({ detail: 'client_id and client_secret are required (form fields or HTTP Basic).' });
        }
        try {
          return await auth.issueToken(id, secret, request.body.scope, auditOriginOf(request));
        } catch (error) {
          if (error instanceof DomainError && error.kind === 'unauthorized') {
            throw await app.addressThrottle.chargeFailure(request, reply, error);
          }
          if (error instanceof InvalidScopeError) {
            return reply.status(400).send({ error: 'invalid_scope', detail: error.message });
          }
          throw error;
        }
      },
    );

    app.post(
      '/logout',
      {
        onRequest: app.authorize(),
        schema: {
          tags: ['management auth'],
          summary:
            "End the presented access token (an operator's sign-in or a client's token); it answers 401 from then on.",
          security,
          response: { 204: Type.Null(), 401: ErrorDetail },
        },
      },
      async (request, reply) => {
        await auth.endToken(bearerToken(request) as string, auditOriginOf(request));
        return reply.status(204).send();
      },
    );

    app.post<{ Body: { name?: string; scopes: string[] } }>(
      '/oauth/client',
      {
        onRequest: app.authorize('client:*'),
        schema: {
          tags: ['management auth'],
          summary: 'Create a management client with a subset of your own scopes; its secret is shown once.',
          security,
          body: Type.Object(
            {
              name: Type.Optional(Type.String({ maxLength: 200 })),
              scopes: Type.Array(Type.Union(SCOPES.map((scope) => Type.Literal(scope))), { maxItems: 50 }),
            },
            { additionalProperties: false },
          ),
          response: {
            201: Type.Intersect([Client, Type.Object({ client_secret: Type.String() })]),
            ...managementErrors,
          },
        },
      },
      async (request, reply) => {
        const created = await auth.createClient(changeActorOf(request), request.body);
        return reply.status(201).send(created);
      },
    );

    app.get(
      '/oauth/client',
      {
        onRequest: app.authorize('client:read'),
        schema: {
          tags: ['management auth'],
          summary: 'List management clients (never their secrets).',
          security,
          response: { 200: Type.Array(Client), ...managementErrors },
        },
      },
      async (request) => auth.listClients(principalOf(request)),
    );

    app.get(
      '/oauth/scopes',
      {
        onRequest: app.authorize(),
        schema: {
          tags: ['management auth'],
          summary: 'Every management scope with what it allows, in the order the service lists them.',
          security,
          response: {
            200: Type.Array(Type.Object({ scope: Type.String(), description: Type.String() })),
            ...managementErrors,
          },
        },
      },
      async () => SCOPES.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] })),
    );

    app.delete<{ Params: { client_id: string } }>(
      '/oauth/client/:client_id',
      {
        onRequest: app.authorize('client:*'),
        schema: {
          tags: ['management auth'],
          summary: 'Delete a management client and revoke its tokens.',
          security,
          params: Type.Object({ client_id: Type.String({ maxLength: 200 }) }),
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await auth.deleteClient(changeActorOf(request), request.params.client_id);
        return reply.status(204).send();
      },
    );
  };
}
