// The management routes' guard, run first on every request: a Bearer access token (401 without a valid one) holding the route's
// scope (403 without it). The principal is left on the request for the handler.
import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Principal, Scope } from '../auth/scopes.ts';
import type { AuthService } from '../auth/service.ts';
import { forbidden } from '../errors.ts';

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

export const authorizePlugin = fp(async (app: FastifyInstance, options: { auth: AuthService }) => {
  app.decorateRequest('principal', undefined);
  app.decorate('authorize', (scope?: Scope): onRequestAsyncHookHandler => {
    return async (request, reply) => {
      try {
        request.principal = await options.auth.authenticate(bearerToken(request));
      } catch (error) {
        reply.header('www-authenticate', 'Bearer');
        throw error;
      }
      if (scope && !request.principal.scopes.includes(scope)) {
        throw forbidden(`This client lacks the scope ${scope}.`);
      }
    };
  });
});

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('route is missing its authorize() hook');
  return request.principal;
}
