// HTTP face of privacy requests: schemas, scopes and status codes. Management routes need a management
// token with the route's scope; resume and the pre-approval answers authenticate with a reply-to-token
// instead. The rules live in PrivacyRequestService.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { bearerToken, changeActorOf } from '../http/authorize.ts';
import {
  ErrorDetail,
  managementErrors,
  OPTIONAL_BODY,
  Page,
  replyTokenSecurity,
  security,
} from '../http/schemas.ts';
import type { Services } from '../services.ts';
import type { Status } from './statuses.ts';
import {
  AccessResults,
  AppealDecisionBody,
  ApproveBody,
  createBody,
  CreateResponse,
  DenyBody,
  ExtendBody,
  IdParams,
  ListQuery,
  LogEntryView,
  PreApprovalBody,
  PrivacyRequestView,
  ReplyAnswer,
  ResumeAnswer,
  ResumeBody,
  ReviewResponse,
} from './schemas.ts';
import { type ReplyTokenClaims, ReplyToService } from './reply-service.ts';
import { PrivacyRequestService } from './service.ts';

const tags = ['privacy requests'];
const errors = { 404: ErrorDetail, ...managementErrors };
const replyErrors = {
  400: ErrorDetail,
  401: ErrorDetail,
  403: ErrorDetail,
  404: ErrorDetail,
  422: ErrorDetail,
};

type IdRoute = { Params: { id: string } };

export function privacyRequestRoutes(services: Services): FastifyPluginAsync {
  const requests = new PrivacyRequestService(services);
  const replies = new ReplyToService(services);
  return async (app) => {
    // The reply-to calls may come without a body; they mean `{}`.
    const emptyBodyIsObject = async (request: FastifyRequest) => {
      request.body ??= {};
    };

    app.post<{ Body: unknown[] }>(
      '/privacy-request',
      {
        onRequest: app.authorize('privacy-request:create'),
        schema: {
          tags,
          summary: 'Receive up to 50 privacy requests; each succeeds or fails on its own.',
          security,
          body: createBody(),
          response: { 200: CreateResponse, ...managementErrors },
        },
      },
      async (request) => {
        const result = await requests.create(request.body, changeActorOf(request));
        request.log.info(
          { succeeded: result.succeeded.map((item) => item.id), failed: result.failed.length },
          'privacy requests received',
        );
        return result;
      },
    );

    app.get<{ Querystring: Type.Static<typeof ListQuery> }>(
      '/privacy-request',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary:
            'List privacy requests, newest first, filtered by request_id, status, external_id or stuck.',
          security,
          querystring: ListQuery,
          response: { 200: Page(PrivacyRequestView), ...managementErrors },
        },
      },
      async (request) => {
        const { request_id: requestId, status, external_id: externalId, stuck } = request.query;
        return requests.list(
          {
            requestId,
            status: status as Status | undefined,
            externalId,
            ...(stuck ? { stuckAfterSeconds: services.config.stuckAfterSeconds } : {}),
          },
          request.query.page ?? 1,
          request.query.size ?? 50,
        );
      },
    );

    app.get<IdRoute>(
      '/privacy-request/:id',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary: 'One privacy request with its policy, due date and known identities.',
          security,
          params: IdParams,
          response: { 200: PrivacyRequestView, ...errors },
        },
      },
      async (request) => requests.get(request.params.id),
    );

    app.get<IdRoute>(
      '/privacy-request/:id/log',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary:
            'Every transition and webhook call of the request, oldest first; never secrets nor bodies.',
          security,
          params: IdParams,
          response: { 200: Type.Array(LogEntryView), ...errors },
        },
      },
      async (request) =>
        (await requests.log(request.params.id)).map((row) => ({
          time: row.at.toISOString(),
          kind: row.kind,
          from_status: row.from_status,
          to_status: row.to_status,
          webhook_key: row.webhook_key,
          timing: row.timing,
          direction: row.direction,
          target_host: row.target_host,
          http_status: row.http_status,
          duration_ms: row.duration_ms,
          attempt: row.attempt,
          error: row.error,
          message: row.message,
          details: row.details,
        })),
    );

    app.get<IdRoute>(
      '/privacy-request/:id/access-results',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary: 'The access package of a completed access request.',
          security,
          params: IdParams,
          response: { 200: AccessResults, ...errors },
        },
      },
      async (request) => requests.accessResults(request.params.id),
    );

    app.patch<{ Body: Type.Static<typeof ApproveBody> }>(
      '/privacy-request/administrate/approve',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary: 'Approve pending requests; each succeeds or fails on its own (400 when none could be).',
          security,
          body: ApproveBody,
          response: { 200: ReviewResponse, ...errors },
        },
      },
      async (request) => requests.approve(request.body.request_ids, changeActorOf(request)),
    );

    app.patch<{ Body: Type.Static<typeof DenyBody> }>(
      '/privacy-request/administrate/deny',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary:
            'Deny pending requests with a reason the subject is told, with the authority to complain to and, where the jurisdiction gives one, an appeal link.',
          security,
          body: DenyBody,
          response: { 200: ReviewResponse, ...errors },
        },
      },
      async (request) => requests.deny(request.body.request_ids, request.body.reason, changeActorOf(request)),
    );

    app.post<IdRoute & { Body: Type.Static<typeof ExtendBody> }>(
      '/privacy-request/:id/extend',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary:
            "Extend an open request's due date once, before it passes, as its jurisdiction allows; the subject is told the reason and the new date (400 naming why not).",
          security,
          params: IdParams,
          body: ExtendBody,
          response: { 200: PrivacyRequestView, ...errors },
        },
      },
      async (request) => requests.extend(request.params.id, request.body.reason, changeActorOf(request)),
    );

    app.post<IdRoute & { Body: Type.Static<typeof AppealDecisionBody> }>(
      '/privacy-request/:id/appeal/decide',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary:
            'Decide a pending appeal (not by the operator who denied: 403). Reversed: the request is approved and runs; upheld: the subject is told, with the authority.',
          security,
          params: IdParams,
          body: AppealDecisionBody,
          response: { 200: PrivacyRequestView, ...errors },
        },
      },
      async (request) =>
        requests.decideAppeal(
          request.params.id,
          { outcome: request.body.outcome as 'upheld' | 'reversed', reason: request.body.reason },
          changeActorOf(request),
        ),
    );

    app.post<IdRoute>(
      '/privacy-request/:id/retry',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary: 'Run a request in error again from the step that failed.',
          security,
          params: IdParams,
          response: { 200: PrivacyRequestView, ...errors },
        },
      },
      async (request) => requests.retry(request.params.id, changeActorOf(request)),
    );

    app.post<IdRoute & { Body: Type.Static<typeof ResumeBody> | undefined }>(
      '/privacy-request/:id/resume',
      {
        onRequest: checkReplyToken,
        preValidation: emptyBodyIsObject,
        schema: {
          tags,
          summary:
            'Resume a paused request; Authorization: Bearer <reply-to-token>. Answers the privacy request (without identities).',
          security: replyTokenSecurity,
          params: IdParams,
          body: ResumeBody,
          ...OPTIONAL_BODY,
          response: { 200: ResumeAnswer, ...replyErrors },
        },
      },
      async (request) => {
        const resumed = await replies.resume(
          request.params.id,
          claimsOf(request),
          request.body?.derived_identity,
        );
        // The status this call set, even if a worker has moved the request on since.
        return { ...(await requests.view(request.params.id)), ...resumed };
      },
    );

    for (const [segment, answer] of [
      ['eligible', 'eligible'],
      ['not-eligible', 'not_eligible'],
    ] as const) {
      app.post<IdRoute>(
        `/privacy-request/:id/pre-approve/${segment}`,
        {
          onRequest: checkReplyToken,
          preValidation: emptyBodyIsObject,
          schema: {
            tags,
            summary: `A pre-approval webhook's answer: ${segment}; Authorization: Bearer <reply-to-token>.`,
            security: replyTokenSecurity,
            params: IdParams,
            body: PreApprovalBody,
            ...OPTIONAL_BODY,
            response: { 200: ReplyAnswer, ...replyErrors },
          },
        },
        async (request) => replies.answerPreApproval(request.params.id, claimsOf(request), answer),
      );
    }

    /** Opens the reply-to-token before the body is read; the handler answers with its claims. */
    const openedTokens = new WeakMap<FastifyRequest, ReplyTokenClaims>();
    async function checkReplyToken(request: FastifyRequest) {
      const id = (request.params as { id: string }).id;
      openedTokens.set(request, await replies.replyTokenClaims(id, replyToken(request)));
    }
    function claimsOf(request: FastifyRequest): ReplyTokenClaims {
      const claims = openedTokens.get(request);
      if (!claims) throw new Error('a reply-to route ran without its token check');
      return claims;
    }
  };
}

function replyToken(request: FastifyRequest): string | undefined {
  return bearerToken(request);
}
