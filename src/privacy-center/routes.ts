// HTTP face of the privacy center's JSON API: its settings (management scopes privacy-center:read and
// :update), the public configuration, the public submission and the public view of a request; and of
// identity verification (public, Fides' paths) and cancel (privacy-request:review). Domain rules live in
// the services.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';
import { readPrivacyCenterSettings } from '../privacy-center-settings/settings.ts';
import { cancelPrivacyRequest } from '../privacy-requests/cancel.ts';
import { CancelBody, PrivacyRequestView } from '../privacy-requests/schemas.ts';
import { PrivacyRequestService } from '../privacy-requests/service.ts';
import type { Services } from '../services.ts';
import { IdentityVerificationService, RetryLater } from '../verification/service.ts';
import { PublicRequestView, PublicSubmission, RequestIdParams, RequestStanding } from './schemas.ts';
import { updatePrivacyCenterSettings } from './settings.ts';
import { PublicSubmissionService } from './submission.ts';
import { refuseCrossSite } from './cross-site.ts';
import { visitorLanguage } from './language.ts';
import type { PublicThrottle } from './throttle.ts';

const tags = ['privacy center'];
const publicErrors = {
  400: ErrorDetail,
  403: ErrorDetail,
  404: ErrorDetail,
  422: ErrorDetail,
  429: ErrorDetail,
};

type IdRoute = { Params: { id: string } };

/** Sets Retry-After for a too-early resend before the error handler answers 429. */
export async function withRetryAfter<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RetryLater) reply.header('retry-after', String(error.retryAfterSeconds));
    throw error;
  }
}

/** Settings and the public side of /v1/privacy-center (not under the bare prefix: /privacy-center is the page). */
export function privacyCenterRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const submissions = new PublicSubmissionService(services);
  const crossSite = refuseCrossSite(services.config);
  return async (app) => {
    app.get(
      '/privacy-center',
      {
        onRequest: app.authorize('privacy-center:read'),
        schema: {
          tags,
          summary: 'The privacy center settings: title, organisation and the actions the public may request.',
          security,
          response: { 200: PrivacyCenterSettings, ...managementErrors },
        },
      },
      async () => readPrivacyCenterSettings(services.db),
    );

    app.put<{ Body: PrivacyCenterSettings }>(
      '/privacy-center',
      {
        onRequest: app.authorize('privacy-center:update'),
        schema: {
          tags,
          summary:
            'Replace the privacy center settings; only the listed policies can be requested by the public.',
          security,
          body: PrivacyCenterSettings,
          response: { 200: PrivacyCenterSettings, ...managementErrors },
        },
      },
      async (request) => {
        const saved = await updatePrivacyCenterSettings(services.db, changeActorOf(request), request.body);
        request.log.info(
          { actions: saved.actions.map((action) => action.policy_key) },
          'privacy center updated',
        );
        return saved;
      },
    );

    app.get(
      '/privacy-center/config',
      {
        schema: {
          tags,
          summary: 'What the privacy center page shows (public, no authentication).',
          response: { 200: PrivacyCenterSettings },
        },
      },
      async () => readPrivacyCenterSettings(services.db),
    );

    app.post<{ Body: PublicSubmission }>(
      '/privacy-center/privacy-request',
      {
        onRequest: [crossSite, throttle],
        schema: {
          tags,
          summary:
            'Submit a privacy request for a published policy (public; throttled per address; cross-site posts 403). Its messages are written in the language of `?lang=`, else Accept-Language, else LETHE_DEFAULT_LANGUAGE. An opt-out (a policy whose rules all record consent, with no opt-in) needs no code. Otherwise, with identity verification on, a code goes to the email (at most 3 requests awaiting verification and 5 code mails an hour per address: 429). Every value given stays unverified until proved: only the email is, by its code.',
          headers: Type.Object({
            'sec-gpc': Type.Optional(
              Type.String({
                maxLength: 10,
                description:
                  'Global Privacy Control: 1 records an opt-out of marketing.advertising for the identities given.',
              }),
            ),
          }),
          body: PublicSubmission,
          response: { 200: RequestStanding, ...publicErrors },
        },
      },
      async (request, reply) => {
        const gpc = request.headers['sec-gpc'] === '1';
        const language = visitorLanguage(request, services.config);
        const answer = await withRetryAfter(reply, () => submissions.submit(request.body, { gpc, language }));
        request.log.info(
          { privacy_request_id: answer.id, status: answer.status },
          'public privacy request received',
        );
        return answer;
      },
    );

    app.get<IdRoute>(
      '/privacy-center/privacy-request/:id',
      {
        schema: {
          tags,
          summary: 'Where a request stands, in the words of its subject (public: the id is the only key).',
          params: RequestIdParams,
          response: { 200: PublicRequestView, 404: ErrorDetail },
        },
      },
      async (request) => submissions.standing(request.params.id),
    );
  };
}

/** Verification and cancel, under every management prefix like the other privacy-request routes. */
export function subjectRequestRoutes(services: Services, throttle: PublicThrottle): FastifyPluginAsync {
  const verification = new IdentityVerificationService(services);
  const requests = new PrivacyRequestService(services);
  const crossSite = refuseCrossSite(services.config);
  return async (app) => {
    app.post<IdRoute & { Body: { code: string } }>(
      '/privacy-request/:id/verify',
      {
        onRequest: [crossSite, throttle],
        schema: {
          tags: ['privacy requests'],
          summary:
            'Verify the identity of a public request with the mailed 6-digit code (public; Fides path).',
          params: RequestIdParams,
          body: Type.Object(
            { code: Type.String({ pattern: '^[0-9]{6}$', description: 'the 6-digit code' }) },
            { additionalProperties: false },
          ),
          response: { 200: RequestStanding, ...publicErrors },
        },
      },
      async (request) => verification.verify(request.params.id, request.body.code),
    );

    app.post<IdRoute>(
      '/privacy-request/:id/verify/resend',
      {
        onRequest: [crossSite, throttle],
        schema: {
          tags: ['privacy requests'],
          summary:
            'Send a new verification code (the old one dies); at most one a minute and 3 a request, at most 5 code mails an hour to one address (public).',
          params: RequestIdParams,
          response: { 200: RequestStanding, ...publicErrors },
        },
      },
      async (request, reply) => withRetryAfter(reply, () => verification.resend(request.params.id)),
    );

    app.post<IdRoute & { Body: { reason?: string; reason_code?: string } | undefined }>(
      '/privacy-request/:id/cancel',
      {
        onRequest: app.authorize('privacy-request:review'),
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags: ['privacy requests'],
          summary:
            'Cancel a request in identity_unverified, pending, approved, paused (its reply-to-token dies) or requires_input (its open tasks are canceled); 400 otherwise. Once verified or operator-made it needs reason_code (subject_withdrew, duplicate, unverifiable; 422 without or unknown): to refuse, deny with a reason.',
          security,
          params: RequestIdParams,
          body: CancelBody,
          response: { 200: PrivacyRequestView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        await cancelPrivacyRequest(
          services,
          request.params.id,
          request.body?.reason?.trim() || null,
          changeActorOf(request),
          request.body?.reason_code ?? null,
        );
        return requests.get(request.params.id);
      },
    );
  };
}
