// The subject's page to confirm an authorized agent, /privacy-center/confirm-agent/{token}: server-rendered
// without script like the privacy center. Opening the link only shows what it is about (mail scanners open
// links); the subject's button posts the confirmation. A link used before says so and changes nothing.
// Every word is in the visitor's language (src/i18n/).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { DomainError } from '../errors.ts';
import type { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';
import { readPrivacyCenterSettings, settingsIn } from '../privacy-center-settings/settings.ts';
import { translate } from '../i18n/catalogue.ts';
import { crossSiteProblem } from './cross-site.ts';
import { refusalSentence, visitorLanguage } from './language.ts';
import { inLanguage, type PageContext, wordsOf } from '../public-pages/words.ts';
import { layout, renderProblem } from './page.ts';
import { answerAsPublicPages, pageStatusOf, sendPage } from '../public-pages/replies.ts';
import type { PublicThrottle } from './throttle.ts';
import type { Services } from '../services.ts';
import { escapeHtml } from '../validation/html.ts';
import { confirmAgent, type ConfirmationView, readConfirmation } from '../agents/service.ts';

const confirmPath = (token: string) => `/privacy-center/confirm-agent/${encodeURIComponent(token)}`;

export function renderConfirmation(
  settings: PrivacyCenterSettings,
  view: ConfirmationView,
  token: string,
  language = 'en',
): string {
  const { say } = wordsOf(language);
  const agent = view.agentName;
  const statusPath = `/privacy-center/requests/${encodeURIComponent(view.privacyRequestId)}`;
  const body =
    view.state === 'confirmed'
      ? `<h1>${say('agent.confirmed_title')}</h1>
<p class="info" role="status">${say('agent.confirmed_text', { agent })}</p>
<p><a href="${escapeHtml(inLanguage(statusPath, language))}">${say('agent.follow')}</a></p>`
      : view.state === 'expired'
        ? `<h1>${say('agent.expired_title')}</h1><p role="alert">${say('agent.expired_text')}</p>`
        : `<h1>${say('agent.title')}</h1>
<p>${say('agent.asked', { agent, organization: settings.organization_name })}</p>
<form method="post" action="${escapeHtml(inLanguage(confirmPath(token), language))}">
<p><button type="submit">${say('agent.confirm_button', { agent })}</button></p>
</form>
<p>${say('agent.not_given')}</p>`;
  return layout(translate(language, 'agent.title'), settings, body, { language, path: confirmPath(token) });
}

export function agentPageRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const settings = async (language: string) =>
    settingsIn(await readPrivacyCenterSettings(services.db), language);
  return async (app) => {
    answerAsPublicPages(app);
    const problem = async (reply: FastifyReply, error: unknown, page: PageContext) => {
      const status = pageStatusOf(error);
      const message = refusalSentence(page.language, error as DomainError);
      return sendPage(reply, status, renderProblem(await settings(page.language), status, message, page));
    };

    app.get<{ Params: { token: string } }>(
      '/privacy-center/confirm-agent/:token',
      // The token is in the path: the per-request info lines (which log the URL) stay off for this route.
      { schema: { hide: true }, logLevel: 'warn', onRequest: throttle },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        try {
          const view = await readConfirmation(services, request.params.token);
          return sendPage(
            reply,
            200,
            renderConfirmation(await settings(language), view, request.params.token, language),
          );
        } catch (error) {
          return problem(reply, error, { language, path: '/privacy-center' });
        }
      },
    );

    app.post<{ Params: { token: string } }>(
      '/privacy-center/confirm-agent/:token',
      { schema: { hide: true }, logLevel: 'warn', onRequest: throttle },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const page = { language, path: '/privacy-center' };
        if (crossSiteProblem(request, services.config))
          return sendPage(
            reply,
            403,
            renderProblem(await settings(language), 403, translate(language, 'refusal.cross_site'), page),
          );
        try {
          const view = await confirmAgent(services, request.params.token);
          return sendPage(
            reply,
            200,
            renderConfirmation(await settings(language), view, request.params.token, language),
          );
        } catch (error) {
          return problem(reply, error, page);
        }
      },
    );
  };
}
