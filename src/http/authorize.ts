// The management routes' guard, run first on every request: a Bearer access token (401 without a valid one) holding the route's
// scope (403 without it). The principal is left on the request for the handler.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { grants, type Principal, type Scope } from '../auth/scopes.ts';
import { forbidden } from '../errors.ts';
import type { AuditOrigin, ChangeActor } from '../audit/audit-log.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * onRequest hook for management routes; without a scope it only requires a valid token. It runs before
     * the body is parsed or validated, so a caller without a valid token or scope learns nothing of the
     * route's schema: 401 and 403 come before 400 and 422.
     */
    authorize(scope?: Scope): onRequestAsyncHookHandler;
  }
  interface FastifyRequest {
    principal: Principal | undefined;
  }
}

export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

/** Who a bearer token belongs to (auth/service.ts's AuthService): the kit asks, it does not know how. */
export interface Authenticator {
  /** The token's principal; throws the 401 when there is none or it is not valid. */
  authenticate(bearer: string | undefined): Promise<Principal>;
}

export const authorizePlugin = fp(async (app: FastifyInstance, options: { auth: Authenticator }) => {
  app.decorateRequest('principal', undefined);
  app.decorate('authorize', (scope?: Scope): onRequestAsyncHookHandler => {
    const guard: onRequestAsyncHookHandler = async (request, reply) => {
      try {
        request.principal = await options.auth.authenticate(bearerToken(request));
      } catch (error) {
        reply.header('www-authenticate', 'Bearer');
        throw error;
      }
      if (scope && !grants(request.principal.scopes, scope)) {
        const holder = request.principal.username === undefined ? 'This client' : 'Your account';
        throw forbidden(`${holder} lacks the scope ${scope}.`);
      }
    };
    // The name shows in app.printRoutes({ includeHooks: true }): the route table states each route's scope.
    Object.defineProperty(guard, 'name', { value: `authorize(${scope ?? 'any token'})` });
    return guard;
  });
});

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its authorize() hook');
  return request.principal;
}

/** The principal and the request id a service records a management change under. */
export function changeActorOf(request: FastifyRequest): ChangeActor {
  return { principal: principalOf(request), ...auditOriginOf(request) };
}

/** The request id and the caller's address (a trusted proxy's forwarded client, see LETHE_TRUST_PROXY). */
export function auditOriginOf(request: FastifyRequest): AuditOrigin {
  return { requestId: request.id, clientAddress: request.ip };
}
