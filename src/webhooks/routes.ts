// HTTP face of the webhook lists. Each timing answers under both spellings of the seed (`pre_execution` and
// `pre-execution`, likewise post); the hyphenated aliases stay out of the OpenAPI document.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import type { Timing } from './repository.ts';
import {
  DeletedView,
  PolicyWebhookParams,
  PreApprovalListBody,
  PreApprovalParams,
  PreApprovalPatchBody,
  PreApprovalView,
  ReorderView,
  SingleWebhookParams,
  WebhookListBody,
  WebhookPatchBody,
  WebhookView,
} from './schemas.ts';
import { WebhookService } from './service.ts';

const tags = ['webhooks'];
const SEGMENTS: { segment: string; timing: Timing; documented: boolean }[] = [
  { segment: 'pre_execution', timing: 'pre', documented: true },
  { segment: 'pre-execution', timing: 'pre', documented: false },
  { segment: 'post_execution', timing: 'post', documented: true },
  { segment: 'post-execution', timing: 'post', documented: false },
];
const errors = { 404: ErrorDetail, ...managementErrors };

type ListParams = { policy_key: string };
type SingleParams = { policy_key: string; webhook_key: string };

export function webhookRoutes(services: Services): FastifyPluginAsync {
  const webhooks = new WebhookService(services);
  return async (app) => {
    for (const { segment, timing, documented } of SEGMENTS) {
      const listPath = `/policy/:policy_key/webhook/${segment}`;
      const singlePath = `${listPath}/:webhook_key`;
      const label = timing === 'pre' ? 'pre-execution' : 'post-execution';
      const hide = !documented;

      app.get<{ Params: ListParams }>(
        listPath,
        {
          onRequest: app.authorize('webhook:read'),
          schema: {
            hide,
            tags,
            summary: `The policy's ${label} webhooks in execution order.`,
            security,
            params: PolicyWebhookParams,
            response: { 200: Type.Array(WebhookView), ...errors },
          },
        },
        async (request) => webhooks.list(request.params.policy_key, timing),
      );

      app.put<{ Params: ListParams; Body: Type.Static<typeof WebhookListBody> }>(
        listPath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            hide,
            tags,
            summary: `Replace the policy's ${label} webhooks (at most 50); order is body order.`,
            security,
            params: PolicyWebhookParams,
            body: WebhookListBody,
            response: { 200: Type.Array(WebhookView), ...errors },
          },
        },
        async (request) => {
          const list = await webhooks.replace(
            changeActorOf(request),
            request.params.policy_key,
            timing,
            request.body,
          );
          request.log.info(
            { policy_key: request.params.policy_key, timing, keys: list.map((webhook) => webhook.key) },
            'policy webhooks replaced',
          );
          return list;
        },
      );

      app.get<{ Params: SingleParams }>(
        singlePath,
        {
          onRequest: app.authorize('webhook:read'),
          schema: {
            hide,
            tags,
            summary: `One ${label} webhook of the policy.`,
            security,
            params: SingleWebhookParams,
            response: { 200: WebhookView, ...errors },
          },
        },
        async (request) => webhooks.get(request.params.policy_key, timing, request.params.webhook_key),
      );

      app.patch<{ Params: SingleParams; Body: Type.Static<typeof WebhookPatchBody> }>(
        singlePath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            hide,
            tags,
            summary: `Change a ${label} webhook; a new order moves the others and is listed in new_order.`,
            security,
            params: SingleWebhookParams,
            body: WebhookPatchBody,
            response: { 200: ReorderView, ...errors },
          },
        },
        async (request) => {
          const { policy_key, webhook_key } = request.params;
          const { resource, new_order } = await webhooks.update(
            changeActorOf(request),
            policy_key,
            timing,
            webhook_key,
            request.body,
          );
          request.log.info(
            { policy_key, timing, webhook_key, fields: Object.keys(request.body) },
            'policy webhook updated',
          );
          return { resource, new_order };
        },
      );

      app.delete<{ Params: SingleParams }>(
        singlePath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            hide,
            tags,
            summary: `Remove a ${label} webhook; the ones after it move up, listed in new_order.`,
            security,
            params: SingleWebhookParams,
            response: { 200: DeletedView, ...errors },
          },
        },
        async (request) => {
          const { policy_key, webhook_key } = request.params;
          const { new_order } = await webhooks.remove(
            changeActorOf(request),
            policy_key,
            timing,
            webhook_key,
          );
          request.log.info({ policy_key, timing, webhook_key }, 'policy webhook deleted');
          return { new_order };
        },
      );
    }

    app.get(
      '/pre_approval_webhook',
      {
        onRequest: app.authorize('webhook:read'),
        schema: {
          tags,
          summary: 'The pre-approval webhooks, called in order when a privacy request is received.',
          security,
          response: { 200: Type.Array(PreApprovalView), ...managementErrors },
        },
      },
      async () => webhooks.listPreApproval(),
    );

    app.put<{ Body: Type.Static<typeof PreApprovalListBody> }>(
      '/pre_approval_webhook',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Replace the pre-approval webhooks (at most 50); order is body order.',
          security,
          body: PreApprovalListBody,
          response: { 200: Type.Array(PreApprovalView), ...errors },
        },
      },
      async (request) => {
        const list = await webhooks.replacePreApproval(changeActorOf(request), request.body);
        request.log.info({ keys: list.map((webhook) => webhook.key) }, 'pre-approval webhooks replaced');
        return list;
      },
    );

    app.get<{ Params: { webhook_key: string } }>(
      '/pre_approval_webhook/:webhook_key',
      {
        onRequest: app.authorize('webhook:read'),
        schema: {
          tags,
          summary: 'One pre-approval webhook.',
          security,
          params: PreApprovalParams,
          response: { 200: PreApprovalView, ...errors },
        },
      },
      async (request) => webhooks.getPreApproval(request.params.webhook_key),
    );

    app.patch<{ Params: { webhook_key: string }; Body: PreApprovalPatchBody }>(
      '/pre_approval_webhook/:webhook_key',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Change the name or the connection of a pre-approval webhook; its order stays.',
          security,
          params: PreApprovalParams,
          body: PreApprovalPatchBody,
          response: { 200: PreApprovalView, ...errors },
        },
      },
      async (request) => {
        const answer = await webhooks.updatePreApproval(
          changeActorOf(request),
          request.params.webhook_key,
          request.body,
        );
        request.log.info(
          { webhook_key: request.params.webhook_key, fields: Object.keys(request.body) },
          'pre-approval webhook updated',
        );
        return answer;
      },
    );

    app.delete<{ Params: { webhook_key: string } }>(
      '/pre_approval_webhook/:webhook_key',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Remove a pre-approval webhook; the ones after it move up, listed in new_order.',
          security,
          params: PreApprovalParams,
          response: { 200: DeletedView, ...errors },
        },
      },
      async (request) => {
        const answer = await webhooks.removePreApproval(changeActorOf(request), request.params.webhook_key);
        request.log.info({ webhook_key: request.params.webhook_key }, 'pre-approval webhook deleted');
        return answer;
      },
    );
  };
}
