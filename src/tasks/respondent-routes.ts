// The respondent's page: GET /respond/{token} shows the task's form, POST answers it (a plain form post,
// no script). A link that is spent, expired or unknown gets a page saying so (410 or 404) and changes
// nothing; a cross-site post is refused (403) before anything is done. Every answer carries the privacy
// center's Content-Security-Policy and is never cached. The token never reaches a log line.
import type { FastifyPluginAsync } from 'fastify';
import { crossSiteProblem } from '../privacy-center/cross-site.ts';
import { visitorLanguage } from '../privacy-center/language.ts';
import { answerAsPublicPages, sendPage } from '../public-pages/replies.ts';
import { readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';
import type { Services } from '../services.ts';
import { renderRespondentEnding, renderRespondentForm, respondentPath } from './respondent-page.ts';
import { answerAsRespondent, respondentLinkState } from './respondent.ts';
import { MAX_VALUE_LENGTH } from './schemas.ts';

const STATUS_OF = { done: 200, used: 410, expired: 410, answered: 409, unknown: 404 } as const;

export function respondentRoutes(services: Services): FastifyPluginAsync {
  const organization = async () => (await readPrivacyCenterSettings(services.db)).organization_name;

  return async (app) => {
    answerAsPublicPages(app);

    // Pages, not API: like the privacy center's, they stay out of the OpenAPI document.
    app.get<{ Params: { token: string } }>(
      '/respond/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const state = await respondentLinkState(services, request.params.token);
        if (state.kind === 'form') {
          return sendPage(
            reply,
            200,
            renderRespondentForm(
              await organization(),
              state.task,
              request.params.token,
              state.identifiers,
              language,
              {
                language: state.requestLanguage ?? services.config.defaultLanguage,
                fallback: services.config.defaultLanguage,
              },
            ),
          );
        }
        const page = { language, path: respondentPath(request.params.token) };
        return sendPage(
          reply,
          STATUS_OF[state.kind],
          renderRespondentEnding(await organization(), state.kind, page),
        );
      },
    );

    app.post<{ Params: { token: string }; Body: unknown }>(
      '/respond/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        const page = {
          language: visitorLanguage(request, services.config),
          path: respondentPath(request.params.token),
        };
        const crossSite = crossSiteProblem(request, services.config);
        if (crossSite)
          return sendPage(reply, 403, renderRespondentEnding(await organization(), 'cross_site', page));
        const state = await respondentLinkState(services, request.params.token);
        if (state.kind !== 'form') {
          return sendPage(
            reply,
            STATUS_OF[state.kind],
            renderRespondentEnding(await organization(), state.kind, page),
          );
        }
        // Only the task's own fields are read; empty answers are left out.
        const form = (
          typeof request.body === 'object' && request.body !== null ? request.body : {}
        ) as Record<string, unknown>;
        const data: Record<string, string> = {};
        for (const field of state.task.fields) {
          const value = form[field.name];
          if (typeof value === 'string' && value.trim() !== '') data[field.name] = value.trim();
        }
        if (Object.values(data).some((value) => value.length > MAX_VALUE_LENGTH)) {
          return sendPage(reply, 422, renderRespondentEnding(await organization(), 'too_long', page));
        }
        const outcome = await answerAsRespondent(services, request.params.token, data);
        if (outcome === 'done') {
          request.log.info({ task_id: state.task.id }, 'task answered by its respondent');
        }
        return sendPage(
          reply,
          STATUS_OF[outcome],
          renderRespondentEnding(await organization(), outcome, page),
        );
      },
    );
  };
}
