// Serves the control panel: the single-page app built from console/ (into console/dist) under /console,
// client routes falling back to its index.html, every page under a strict Content-Security-Policy. The
// panel talks to the public management API only; this module never proxies it, never inlines a script and
// never answers a secret. Without a build, /console answers 503 with the command that builds it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import Type from 'typebox';
import { managementErrors, security } from '../http/schemas.ts';
import { principalOf } from '../http/authorize.ts';
import type { Services } from '../services.ts';

export const CONSOLE_DIST = path.resolve(import.meta.dirname, '../../console/dist');

/** Scripts, styles and calls from this origin only; nothing inline, nothing framed, no plugins. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT =
  'The Lethe console is not built. Run `npm run build:console` in the project folder ' +
  '(`npm ci` runs it too), then restart Lethe.\n';

const ConsoleSession = Type.Object({
  client_id: Type.String(),
  username: Type.Union([Type.String(), Type.Null()], {
    description: 'the operator signed in, or null for a client',
  }),
  scopes: Type.Array(Type.String()),
  privacy_request_delay_timeout_seconds: Type.Integer({
    description: 'how long a paused request waits for its resume call before going to error',
  }),
  require_manual_approval: Type.Boolean(),
});

const SignInOptions = Type.Object({
  operator_accounts: Type.Boolean({
    description: 'whether any operator account exists; without one, only a management client can sign in',
  }),
});

export function consoleRoutes(services: Services, distDir: string = CONSOLE_DIST): FastifyPluginAsync {
  return async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', CONSOLE_CSP);
      return payload;
    });

    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console'));

    app.get(
      '/console/session',
      {
        onRequest: app.authorize(),
        schema: {
          tags: ['console'],
          summary: 'The signed-in operator or client and the service settings the console displays.',
          security,
          response: { 200: ConsoleSession, ...managementErrors },
        },
      },
      async (request) => {
        const principal = principalOf(request);
        return {
          client_id: principal.clientId,
          username: principal.username ?? null,
          scopes: [...principal.scopes],
          privacy_request_delay_timeout_seconds: services.config.privacyRequestDelayTimeoutSeconds,
          require_manual_approval: services.config.requireManualApproval,
        };
      },
    );

    // Before anyone signs in, the page asks which way in exists: on a fresh start there is no operator
    // account yet, only the root client. One boolean, no count and no name.
    app.get(
      '/console/sign-in-options',
      {
        schema: {
          tags: ['console'],
          summary: 'Whether any operator account exists, so the sign-in page opens on the way in that works.',
          response: { 200: SignInOptions },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return { operator_accounts: await services.operators.anyExists() };
      },
    );

    const indexFile = path.join(distDir, 'index.html');
    if (!existsSync(indexFile)) {
      const notBuilt = async (_request: unknown, reply: FastifyReply) =>
        reply.status(503).type('text/plain; charset=utf-8').header('retry-after', '60').send(NOT_BUILT);
      app.get('/console', { schema: { hide: true } }, notBuilt);
      app.get('/console/*', { schema: { hide: true } }, notBuilt);
      return;
    }

    await app.register(fastifyStatic, {
      root: distDir,
      prefix: '/console/',
      wildcard: false,
      index: false,
      // Vite names every asset after its content hash, so an asset never changes under its name.
      setHeaders: (reply, filePath) => {
        reply.header(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`)
            ? 'public, max-age=31536000, immutable'
            : 'no-cache',
        );
      },
    });

    const sendIndex = async (_request: unknown, reply: FastifyReply) => reply.sendFile('index.html');
    app.get('/console', { schema: { hide: true } }, sendIndex);
    app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (request, reply) => {
      // A missing asset is a 404, not the page: a stale tab must not run HTML as a script.
      if (request.params['*'].startsWith('assets/')) return reply.callNotFound();
      return sendIndex(request, reply);
    });
  };
}
