// The public pages under /privacy-center: the home page with the published actions, a request's status
// page with the code form, the stylesheet, and the access-package download. Forms post here and are
// answered with a redirect (so reloading never posts twice) or, when something is wrong, the same page
// with the problem and the right 4xx status; a cross-site post is refused (403) before anything is done.
// Every answer is a public page of the kit (src/public-pages/): PAGE_CSP, never cached.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { checkPackageDownload, openPackageDownload } from '../access-delivery/download.ts';
import { AGENT_NAME_MAX_LENGTH } from '../agents/service.ts';
import {
  type Correction,
  Correction as CorrectionSchema,
  CORRECTION_TARGET_PATTERN,
  MAX_CORRECTION_ATTRIBUTE_LENGTH,
  MAX_CORRECTION_VALUE_LENGTH,
} from '../corrections/schemas.ts';
import { type DomainError, invalid } from '../errors.ts';
import { answerAsPublicPages, pageStatusOf, sendPage } from '../public-pages/replies.ts';
import { PAGE_STYLE } from '../public-pages/style.ts';
import type { Services } from '../services.ts';
import { IdentityVerificationService, RetryLater } from '../verification/service.ts';
import { translate } from '../i18n/catalogue.ts';
import { refusalSentence, visitorLanguage } from './language.ts';
import {
  CORRECTION_FIELDS,
  CORRECTION_ROWS,
  type CorrectionRow,
  renderHome,
  renderProblem,
  renderStanding,
} from './page.ts';
import { inLanguage } from '../public-pages/words.ts';
import { readPrivacyCenterSettings, settingsIn } from '../privacy-center-settings/settings.ts';
import { PublicSubmissionService } from './submission.ts';
import { locationFromForm } from './places.ts';
import { crossSiteProblem } from './cross-site.ts';
import { itemValidator, type ItemCheck } from '../validation/bulk.ts';
import type { PublicThrottle } from './throttle.ts';

type Form = Record<string, unknown>;

function field(form: unknown, name: string, maxLength: number): string | undefined {
  const value = (form as Form | undefined)?.[name];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  return trimmed.length > maxLength ? trimmed.slice(0, maxLength + 1) : trimmed;
}

/** The form's correction rows as typed, every one (given back when the form must be corrected). */
function correctionRows(form: unknown): CorrectionRow[] {
  return Array.from({ length: CORRECTION_ROWS }, (_, offset) => ({
    attribute: field(form, CORRECTION_FIELDS.attribute(offset + 1), MAX_CORRECTION_ATTRIBUTE_LENGTH) ?? '',
    value: field(form, CORRECTION_FIELDS.value(offset + 1), MAX_CORRECTION_VALUE_LENGTH) ?? '',
  }));
}

let checkCorrection: ((item: unknown) => ItemCheck<Correction>) | undefined;

/**
 * The rows filled in, as the submission's `corrections` (undefined when none is), each checked against
 * the same schema as the JSON path's body; the submission then applies the rules both paths share.
 */
function correctionsOf(rows: readonly CorrectionRow[]): Correction[] | undefined {
  checkCorrection ??= itemValidator(CorrectionSchema);
  const corrections: Correction[] = [];
  for (const [offset, row] of rows.entries()) {
    if (row.attribute === '' && row.value === '') continue;
    const checked = checkCorrection(row);
    if (!checked.ok) throw rowRefusal(offset + 1, row, checked.message);
    corrections.push(checked.value);
  }
  return corrections.length > 0 ? corrections : undefined;
}

const TARGET = new RegExp(CORRECTION_TARGET_PATTERN);

/**
 * Why row `row` of the form cannot be read as a correction, in the catalogue's words (the visitor's
 * language): what to correct left out, too long, or not written as table.attribute; the schema's own
 * sentence stays the message of the refusal.
 */
function rowRefusal(row: number, typed: CorrectionRow, schemaMessage: string): DomainError {
  const message = `Item ${row} to correct: ${schemaMessage}`;
  const tooLong = (part: 'attribute' | 'value', max: number) =>
    invalid(message, { key: 'refusal.correction_too_long', values: { row, part, max } });
  if (typed.attribute === '')
    return invalid(message, { key: 'refusal.correction_what_missing', values: { row } });
  if (typed.attribute.length > MAX_CORRECTION_ATTRIBUTE_LENGTH)
    return tooLong('attribute', MAX_CORRECTION_ATTRIBUTE_LENGTH);
  if (typed.value.length > MAX_CORRECTION_VALUE_LENGTH) return tooLong('value', MAX_CORRECTION_VALUE_LENGTH);
  if (!TARGET.test(typed.attribute))
    return invalid(message, { key: 'refusal.correction_what_form', values: { row } });
  return invalid(message, { key: 'refusal.correction_item', values: { row } });
}

/** A refusal's status and its sentence in the page's language (a non-domain error is thrown on). */
function refused(error: unknown, language: string): { status: number; message: string } {
  const status = pageStatusOf(error);
  return { status, message: refusalSentence(language, error as DomainError) };
}

const HOME = '/privacy-center';
const requestPath = (id: string) => `/privacy-center/requests/${encodeURIComponent(id)}`;

export function privacyCenterPageRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const submissions = new PublicSubmissionService(services);
  const verification = new IdentityVerificationService(services);
  const settings = async (language: string) =>
    settingsIn(await readPrivacyCenterSettings(services.db), language);

  /** The page's answer to a cross-site or throttled form: a page with the problem (403, 429). */
  const throttleForm = async (request: FastifyRequest, reply: FastifyReply) => {
    const language = visitorLanguage(request, services.config);
    const page = { language, path: HOME };
    if (crossSiteProblem(request, services.config)) {
      reply.status(403).type('text/html; charset=utf-8');
      return reply.send(
        renderProblem(await settings(language), 403, translate(language, 'refusal.cross_site'), page),
      );
    }
    try {
      await throttle(request, reply);
    } catch (error) {
      const { status, message } = refused(error, language);
      reply.status(status).type('text/html; charset=utf-8');
      return reply.send(renderProblem(await settings(language), status, message, page));
    }
    return undefined;
  };

  return async (app) => {
    answerAsPublicPages(app);

    const standingPage = async (
      reply: FastifyReply,
      language: string,
      id: string,
      status = 200,
      notice?: { kind: 'problem' | 'info'; message: string },
    ) => {
      const current = await settings(language);
      try {
        return sendPage(
          reply,
          status,
          renderStanding(current, await submissions.standing(id, language), notice, language),
        );
      } catch (error) {
        const refusal = refused(error, language);
        return sendPage(
          reply,
          refusal.status,
          renderProblem(current, refusal.status, refusal.message, { language, path: HOME }),
        );
      }
    };

    const home = async (language: string, problem?: Parameters<typeof renderHome>[1]) => {
      const current = await settings(language);
      return renderHome(current, problem, await submissions.formKinds(current), language);
    };

    app.get('/privacy-center', { schema: { hide: true } }, async (request, reply) =>
      sendPage(reply, 200, await home(visitorLanguage(request, services.config))),
    );

    app.get('/privacy-center/privacy-center.css', { schema: { hide: true } }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').send(PAGE_STYLE),
    );

    app.post(
      '/privacy-center/requests',
      { schema: { hide: true }, onRequest: throttleForm },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const policyKey = field(request.body, 'policy_key', 200) ?? '';
        const values = {
          email: field(request.body, 'email', 320),
          phone_number: field(request.body, 'phone_number', 16),
        };
        const agent = {
          agent_name: field(request.body, 'agent_name', AGENT_NAME_MAX_LENGTH),
          agent_email: field(request.body, 'agent_email', 320),
        };
        const rows = correctionRows(request.body);
        const place = {
          country: field(request.body, 'country', 10),
          us_state: field(request.body, 'us_state', 10),
        };
        try {
          const corrections = correctionsOf(rows);
          const where = locationFromForm(place.country, place.us_state);
          if ('contradiction' in where)
            throw invalid(
              'A US state is chosen only with the United States as the country (or no country).',
              {
                key: 'refusal.state_outside_us',
              },
            );
          const identity = Object.fromEntries(
            Object.entries(values).filter(([, value]) => value !== undefined),
          );
          const answer = await submissions.submit(
            {
              policy_key: policyKey,
              identity,
              ...(where.location ? { location: where.location } : {}),
              ...(corrections ? { corrections } : {}),
              ...(agent.agent_name || agent.agent_email
                ? { agent: { name: agent.agent_name ?? '', email: agent.agent_email ?? '' } }
                : {}),
            },
            { gpc: request.headers['sec-gpc'] === '1', language },
            'public_form',
          );
          return reply.redirect(inLanguage(requestPath(answer.id), language), 303);
        } catch (error) {
          const { status, message } = refused(error, language);
          return sendPage(
            reply,
            status,
            await home(language, {
              policyKey,
              message,
              values: { ...values, ...agent, ...place, corrections: rows },
            }),
          );
        }
      },
    );

    app.get<{ Params: { id: string } }>(
      '/privacy-center/requests/:id',
      { schema: { hide: true } },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const sent = (request.query as Form | undefined)?.sent === '1';
        return standingPage(
          reply,
          language,
          request.params.id,
          200,
          sent ? { kind: 'info', message: translate(language, 'standing.code_sent') } : undefined,
        );
      },
    );

    app.post<{ Params: { id: string } }>(
      '/privacy-center/requests/:id/verify',
      { schema: { hide: true }, onRequest: throttleForm },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const code = field(request.body, 'code', 6) ?? '';
        if (!/^[0-9]{6}$/.test(code))
          return standingPage(reply, language, request.params.id, 400, {
            kind: 'problem',
            message: translate(language, 'standing.code_shape'),
          });
        try {
          await verification.verify(request.params.id, code);
        } catch (error) {
          const { status, message } = refused(error, language);
          return standingPage(reply, language, request.params.id, status, { kind: 'problem', message });
        }
        return reply.redirect(inLanguage(requestPath(request.params.id), language), 303);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/privacy-center/requests/:id/resend',
      { schema: { hide: true }, onRequest: throttleForm },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        try {
          await verification.resend(request.params.id);
        } catch (error) {
          if (error instanceof RetryLater) reply.header('retry-after', String(error.retryAfterSeconds));
          const { status, message } = refused(error, language);
          return standingPage(reply, language, request.params.id, status, { kind: 'problem', message });
        }
        return reply.redirect(`${inLanguage(requestPath(request.params.id), language)}&sent=1`, 303);
      },
    );

    app.get<{ Params: { token: string } }>(
      '/privacy-center/download/:token',
      // The token is in the path: the per-request info lines (which log the URL) stay off for this route.
      { schema: { hide: true }, logLevel: 'warn' },
      async (request, reply) => {
        const language = visitorLanguage(request, services.config);
        const problemPage = async (error: unknown) => {
          const { status, message } = refused(error, language);
          return sendPage(
            reply,
            status,
            renderProblem(await settings(language), status, message, { language, path: HOME }),
          );
        };
        if (request.method === 'HEAD') {
          // Fastify answers HEAD with this handler: check the link, build nothing, audit nothing.
          try {
            const { privacyRequestId } = await checkPackageDownload(services, request.params.token);
            return reply
              .type('application/zip')
              .header('content-disposition', `attachment; filename="access-package-${privacyRequestId}.zip"`)
              .send();
          } catch (error) {
            return problemPage(error);
          }
        }
        let download: Awaited<ReturnType<typeof openPackageDownload>>;
        try {
          download = await openPackageDownload(services, request.params.token, {
            requestId: request.id,
            clientAddress: request.ip,
          });
        } catch (error) {
          return problemPage(error);
        }
        return reply
          .type('application/zip')
          .header(
            'content-disposition',
            `attachment; filename="access-package-${download.privacyRequestId}.zip"`,
          )
          .send(download.stream);
      },
    );
  };
}
