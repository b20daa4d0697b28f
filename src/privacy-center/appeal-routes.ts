// The subject's appeal of a denial: the JSON endpoint POST /v1/privacy-center/appeal {token, statement}
// and the page at /privacy-center/appeal/{token} with its form. Both are public (the link's token is the
// key), throttled per address and refuse cross-site posts. The token is in the path of the page: its
// routes log at warn only, like the download link's. The rules are in privacy-requests/appeals.ts.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import Type from 'typebox';
import { DomainError } from '../errors.ts';
import { STATUS_BY_KIND } from '../http/error-handler.ts';
import { ErrorDetail } from '../http/schemas.ts';
import { appealOfLink, submitAppeal } from '../privacy-requests/appeals.ts';
import type { Services } from '../services.ts';
import { translate } from '../i18n/catalogue.ts';
import { appealPath, renderAppealForm, renderAppealReceived, STATEMENT_MAX_LENGTH } from './appeal-page.ts';
import { crossSiteProblem, refuseCrossSite } from './cross-site.ts';
import { refusalSentence, visitorLanguage } from './language.ts';
import { PAGE_CSP, renderProblem } from './page.ts';
import { readPrivacyCenterSettings, settingsIn } from '../privacy-center-settings/settings.ts';
import type { PublicThrottle } from './throttle.ts';

const TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';
const TOKEN_SHAPE = new RegExp(TOKEN_PATTERN);

const AppealBody = Type.Object(
  {
    token: Type.String({ pattern: TOKEN_PATTERN, description: 'The token of the appeal link.' }),
    statement: Type.String({ minLength: 1, maxLength: STATEMENT_MAX_LENGTH, pattern: '\\S' }),
  },
  { additionalProperties: false },
);

const AppealReceived = Type.Object({
  privacy_request_id: Type.String(),
  due_date: Type.String({ format: 'date-time', description: 'When the appeal will be decided by.' }),
});

/** POST /v1/privacy-center/appeal, registered beside the privacy center's JSON API. */
export function appealRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const crossSite = refuseCrossSite(services.config);
  return async (app) => {
    app.post<{ Body: Type.Static<typeof AppealBody> }>(
      '/privacy-center/appeal',
      {
        onRequest: [crossSite, throttle],
        logLevel: 'warn',
        schema: {
          tags: ['privacy center'],
          summary:
            "Appeal a denial with the link's token (public; single use; 410 once the appeal window has ended).",
          body: AppealBody,
          response: {
            200: AppealReceived,
            400: ErrorDetail,
            403: ErrorDetail,
            404: ErrorDetail,
            410: ErrorDetail,
            422: ErrorDetail,
            429: ErrorDetail,
          },
        },
      },
      async (request) => {
        const received = await submitAppeal(services, request.body.token, request.body.statement.trim());
        return { privacy_request_id: received.privacy_request_id, due_date: received.due_date.toISOString() };
      },
    );
  };
}

function statusOf(error: unknown): number {
  if (error instanceof DomainError) return STATUS_BY_KIND[error.kind];
  throw error;
}

/** The page and its form. */
export function appealPageRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const settings = async (language: string) =>
    settingsIn(await readPrivacyCenterSettings(services.db), language);
  return async (app) => {
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', PAGE_CSP);
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'same-origin');
      return payload;
    });
    const html = (reply: FastifyReply, status: number, text: string) =>
      reply.status(status).type('text/html; charset=utf-8').send(text);
    const problem = async (reply: FastifyReply, error: unknown, page: { language: string; path: string }) => {
      const status = statusOf(error);
      const message = refusalSentence(page.language, error as DomainError);
      return html(reply, status, renderProblem(await settings(page.language), status, message, page));
    };
    const unknownLink = () =>
      new DomainError('not_found', 'This appeal link is unknown or was already used.', {
        key: 'refusal.appeal_link_unknown',
      });

    app.get<{ Params: { token: string } }>(
      '/privacy-center/appeal/:token',
      { schema: { hide: true }, logLevel: 'warn' },
      async (request, reply) => {
        const { token } = request.params;
        const language = visitorLanguage(request, services.config);
        const page = { language, path: TOKEN_SHAPE.test(token) ? appealPath(token) : '/privacy-center' };
        try {
          if (!TOKEN_SHAPE.test(token)) throw unknownLink();
          const appeal = await appealOfLink(services, token);
          return html(
            reply,
            200,
            renderAppealForm(await settings(language), token, appeal.window_ends_at, undefined, language),
          );
        } catch (error) {
          return problem(reply, error, page);
        }
      },
    );

    app.post<{ Params: { token: string } }>(
      '/privacy-center/appeal/:token',
      { schema: { hide: true }, logLevel: 'warn' },
      async (request, reply) => {
        const { token } = request.params;
        const language = visitorLanguage(request, services.config);
        const page = { language, path: TOKEN_SHAPE.test(token) ? appealPath(token) : '/privacy-center' };
        if (crossSiteProblem(request, services.config))
          return html(
            reply,
            403,
            renderProblem(await settings(language), 403, translate(language, 'refusal.cross_site'), page),
          );
        try {
          await throttle(request, reply);
          if (!TOKEN_SHAPE.test(token)) throw unknownLink();
          const raw = (request.body as Record<string, unknown> | undefined)?.statement;
          const statement = typeof raw === 'string' ? raw.trim() : '';
          if (statement === '' || statement.length > STATEMENT_MAX_LENGTH) {
            const appeal = await appealOfLink(services, token);
            return html(
              reply,
              422,
              renderAppealForm(
                await settings(language),
                token,
                appeal.window_ends_at,
                {
                  message: translate(language, 'appeal.statement_problem', { max: STATEMENT_MAX_LENGTH }),
                  statement: statement.slice(0, STATEMENT_MAX_LENGTH),
                },
                language,
              ),
            );
          }
          const received = await submitAppeal(services, token, statement);
          return html(reply, 200, renderAppealReceived(await settings(language), received.due_date, page));
        } catch (error) {
          return problem(reply, error, page);
        }
      },
    );
  };
}
