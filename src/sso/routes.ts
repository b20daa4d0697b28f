// OpenID Connect sign-in over HTTP, under /v1/oidc. GET /v1/oidc tells the console's sign-in page what to
// offer; GET /v1/oidc/login and /v1/oidc/callback are browser steps (a redirect, or a page saying why the
// sign-in was refused), outside the OpenAPI document; POST /v1/oidc/session trades the console's one-time
// code for the session. The browser cookie only binds the callback to the browser that started it.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { unauthorized, notFound, unavailable } from '../errors.ts';
import { auditOriginOf } from '../http/authorize.ts';
import { ErrorDetail } from '../http/schemas.ts';
import { escapeHtml } from '../validation/html.ts';
import type { OperatorService } from '../operators/service.ts';
import { OidcUnavailable, SignInRefused } from './errors.ts';
import type { Services } from '../services.ts';

const COOKIE = 'lethe_oidc';
const COOKIE_PATH = '/v1/oidc';
const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const SignInOptions = Type.Object({
  password_login: Type.Boolean({ description: 'whether operators may sign in with a password' }),
  oidc: Type.Union([
    Type.Object({
      name: Type.String({ description: "the provider's name for the button" }),
      login_url: Type.String({ description: 'where the browser starts the sign-in' }),
    }),
    Type.Null(),
  ]),
});

const LoginAnswer = Type.Object({
  user_data: Type.Object({ username: Type.String(), roles: Type.Array(Type.String()) }),
  token_data: Type.Object({
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
  }),
});

function cookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}

function refusalPage(reply: FastifyReply, status: number, reason: string) {
  reply.header('content-security-policy', PAGE_CSP);
  reply.header('referrer-policy', 'no-referrer');
  return reply
    .status(status)
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in refused · Lethe</title></head>` +
        `<body><main><h1>Sign-in refused</h1><p role="alert">${escapeHtml(reason)}</p>` +
        `<p><a href="/console/">Back to the sign-in page</a></p></main></body></html>`,
    );
}

export function ssoRoutes(deps: {
  sso: Services['sso'];
  operators: OperatorService;
  publicBaseUrl: () => string;
}): FastifyPluginAsync {
  const { sso, operators } = deps;
  const configured = () => {
    if (!sso)
      throw notFound('Sign-in through an identity provider is not configured here (LETHE_OIDC_ISSUER).');
    return sso;
  };
  return async (app) => {
    app.get(
      '/oidc',
      {
        schema: {
          tags: ['management auth'],
          summary:
            "How operators sign in here: with a password, through the company's identity provider, or both.",
          response: { 200: SignInOptions },
        },
      },
      async () => ({
        password_login: operators.signIn.passwordLogin,
        oidc: sso ? { name: sso.providerName, login_url: '/v1/oidc/login' } : null,
      }),
    );

    app.get('/oidc/login', { schema: { hide: true } }, async (_request, reply) => {
      const service = configured();
      let started;
      try {
        started = await service.start(service.redirectUri(deps.publicBaseUrl()));
      } catch (error) {
        if (error instanceof OidcUnavailable) throw unavailable(error.message);
        throw error;
      }
      const secure = deps.publicBaseUrl().startsWith('https:') ? '; Secure' : '';
      reply.header(
        'set-cookie',
        `${COOKIE}=${started.browserSecret}; Path=${COOKIE_PATH}; Max-Age=600; HttpOnly; SameSite=Lax${secure}`,
      );
      return reply.redirect(started.url, 302);
    });

    app.get('/oidc/callback', { schema: { hide: true } }, async (request, reply) => {
      const service = configured();
      // The sign-in's cookie is spent either way.
      reply.header('set-cookie', `${COOKIE}=; Path=${COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`);
      const callbackUrl = new URL(request.url, service.redirectUri(deps.publicBaseUrl()));
      try {
        const code = await service.finish(callbackUrl, cookieOf(request), auditOriginOf(request));
        // The fragment never reaches a server nor a log; the console reads it and trades it at once.
        return reply.redirect(`/console/#oidc=${code}`, 302);
      } catch (error) {
        if (error instanceof SignInRefused) return refusalPage(reply, error.status, error.message);
        if (error instanceof OidcUnavailable) return refusalPage(reply, 503, error.message);
        throw error;
      }
    });

    app.post<{ Body: { code: string } }>(
      '/oidc/session',
      {
        schema: {
          tags: ['management auth'],
          summary:
            "Trade the one-time code the provider's sign-in left for the console for the operator's session.",
          body: Type.Object(
            { code: Type.String({ minLength: 1, maxLength: 100 }) },
            { additionalProperties: false },
          ),
          response: { 200: LoginAnswer, 401: ErrorDetail, 404: ErrorDetail, 422: ErrorDetail },
        },
      },
      async (request) => {
        const answer = await configured().redeem(request.body.code, auditOriginOf(request));
        if (!answer)
          throw unauthorized('This sign-in code is unknown, already used or expired. Sign in again.');
        return answer;
      },
    );
  };
}
