// The subject's page to confirm an authorized agent, /privacy-center/confirm-agent/{token}: server-rendered
// without script like the privacy center (the public pages' kit). Opening the link only shows what it is about (mail scanners open
// links); the subject's button posts the confirmation. A link used before says so and changes nothing.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';
import { readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';
import { crossSiteProblem } from './cross-site.ts';
import { layout, privacyCenterFrame, renderProblem } from '../public-pages/layout.ts';
import { answerAsPublicPages, pageStatusOf, sendPage } from '../public-pages/replies.ts';
import type { PublicThrottle } from './throttle.ts';
import type { Services } from '../services.ts';
import { escapeHtml } from '../validation/html.ts';
import { confirmAgent, type ConfirmationView, readConfirmation } from '../agents/service.ts';

const statusLink = (view: ConfirmationView) =>
  `<p><a href="/privacy-center/requests/${encodeURIComponent(view.privacyRequestId)}">Follow the request</a></p>`;

export function renderConfirmation(
  settings: PrivacyCenterSettings,
  view: ConfirmationView,
  token: string,
): string {
  const agent = escapeHtml(view.agentName);
  const body =
    view.state === 'confirmed'
      ? `<h1>Agent confirmed</h1>
<p class="info" role="status">You confirmed that ${agent} acts for you. Your request goes on; we will email you about it.</p>
${statusLink(view)}`
      : view.state === 'expired'
        ? `<h1>This link has expired</h1><p role="alert">Nothing was changed. Your agent can submit the request again.</p>`
        : `<h1>Confirm your authorized agent</h1>
<p>${agent} asked ${escapeHtml(settings.organization_name)} to act on your behalf. Nothing happens until you confirm that you gave them permission.</p>
<form method="post" action="/privacy-center/confirm-agent/${encodeURIComponent(token)}">
<p><button type="submit">Yes, ${agent} acts for me</button></p>
</form>
<p>If you did not give anyone permission, close this page: the request will not go on.</p>`;
  return layout('Confirm your authorized agent', privacyCenterFrame(settings), body);
}

export function agentPageRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const settings = () => readPrivacyCenterSettings(services.db);
  return async (app) => {
    answerAsPublicPages(app);
    const problem = async (reply: FastifyReply, error: unknown) => {
      const status = pageStatusOf(error);
      return sendPage(
        reply,
        status,
        renderProblem(privacyCenterFrame(await settings()), status, (error as Error).message),
      );
    };

    app.get<{ Params: { token: string } }>(
      '/privacy-center/confirm-agent/:token',
      // The token is in the path: the per-request info lines (which log the URL) stay off for this route.
      { schema: { hide: true }, logLevel: 'warn', onRequest: throttle },
      async (request, reply) => {
        try {
          const view = await readConfirmation(services, request.params.token);
          return sendPage(reply, 200, renderConfirmation(await settings(), view, request.params.token));
        } catch (error) {
          return problem(reply, error);
        }
      },
    );

    app.post<{ Params: { token: string } }>(
      '/privacy-center/confirm-agent/:token',
      { schema: { hide: true }, logLevel: 'warn', onRequest: throttle },
      async (request, reply) => {
        const crossSite = crossSiteProblem(request, services.config);
        if (crossSite)
          return sendPage(reply, 403, renderProblem(privacyCenterFrame(await settings()), 403, crossSite));
        try {
          const view = await confirmAgent(services, request.params.token);
          return sendPage(reply, 200, renderConfirmation(await settings(), view, request.params.token));
        } catch (error) {
          return problem(reply, error);
        }
      },
    );
  };
}
