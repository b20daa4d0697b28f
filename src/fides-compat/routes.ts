// Fides' own paths, answered under /api/v1 with Fides' shapes and status codes, so a script written for
// Fides runs unchanged: the policy webhook lists and single webhooks under /dsr/policy/{key}/webhook, the
// pre-approval webhooks under /dsr/webhook/pre_approval, and PUT /connection/{key}/secret. Each handler
// calls the same domain service as Lethe's own paths and only reshapes what goes in and comes out; no
// rule is decided here. Lethe's own paths (/v1, /api/v1 and bare) keep their answers.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { ConnectionKeyParams, type ConnectionView, SecretsBody } from '../connections/schemas.ts';
import { ConnectionService } from '../connections/service.ts';
import { badRequest } from '../errors.ts';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, Page, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import type { Timing } from '../webhooks/repository.ts';
import { PolicyWebhookParams, PreApprovalParams, SingleWebhookParams } from '../webhooks/schemas.ts';
import { WebhookOrderError, WebhookService } from '../webhooks/service.ts';
import {
  fidesPage,
  type FidesPageQuery,
  FidesPageQuery as PageQuery,
  type FidesPreApprovalItem,
  FidesPreApprovalListBody,
  FidesPreApprovalPatchBody,
  FidesPreApprovalWebhook,
  FidesSecretQuery,
  FidesTestStatusMessage,
  FidesWebhook,
  FidesWebhookDeleteAnswer,
  type FidesWebhookItem,
  FidesWebhookListBody,
  FidesWebhookPatchBody,
  FidesWebhookUpdateAnswer,
  toFidesPreApproval,
  toFidesWebhook,
  withKeys,
} from './shapes.ts';

export const FIDES_PREFIX = '/api/v1';

const tags = ['fides compatibility'];
const errors = { 404: ErrorDetail, ...managementErrors };
const TIMINGS: { segment: string; timing: Timing }[] = [
  { segment: 'pre_execution', timing: 'pre' },
  { segment: 'post_execution', timing: 'post' },
];

type ListRoute = { Params: { policy_key: string } };
type SingleRoute = { Params: { policy_key: string; webhook_key: string } };
type PreApprovalRoute = { Params: { webhook_key: string } };

export function fidesCompatRoutes(services: Services): FastifyPluginAsync {
  const webhooks = new WebhookService(services);
  const connections = new ConnectionService(services);

  /** The connections the answer embeds, each read once. */
  async function connectionsOf(keys: readonly string[]): Promise<Map<string, ConnectionView>> {
    const unique = [...new Set(keys)];
    const views = await Promise.all(unique.map(async (key) => connections.get(key)));
    return new Map(views.map((view) => [view.key, view]));
  }

  async function fidesWebhooks(list: Parameters<typeof toFidesWebhook>[0][]) {
    const embedded = await connectionsOf(list.map((webhook) => webhook.connection_config_key));
    return list.map((webhook) =>
      toFidesWebhook(webhook, embedded.get(webhook.connection_config_key) as ConnectionView),
    );
  }

  async function fidesPreApprovals(list: Parameters<typeof toFidesPreApproval>[0][]) {
    const embedded = await connectionsOf(list.map((webhook) => webhook.connection_config_key));
    return list.map((webhook) =>
      toFidesPreApproval(webhook, embedded.get(webhook.connection_config_key) as ConnectionView),
    );
  }

  return async (app) => {
    for (const { segment, timing } of TIMINGS) {
      const listPath = `/dsr/policy/:policy_key/webhook/${segment}`;
      const singlePath = `${listPath}/:webhook_key`;

      app.get<ListRoute & { Querystring: FidesPageQuery }>(
        listPath,
        {
          onRequest: app.authorize('webhook:read'),
          schema: {
            tags,
            summary: `Fides: the policy's ${segment} webhooks in order, as a page.`,
            security,
            params: PolicyWebhookParams,
            querystring: PageQuery,
            response: { 200: Page(FidesWebhook), ...errors },
          },
        },
        async (request) =>
          fidesPage(
            await fidesWebhooks(await webhooks.list(request.params.policy_key, timing)),
            request.query,
          ),
      );

      app.put<ListRoute & { Body: FidesWebhookItem[] }>(
        listPath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            tags,
            summary: `Fides: replace the policy's ${segment} webhooks; a missing key comes from the name.`,
            security,
            params: PolicyWebhookParams,
            body: FidesWebhookListBody,
            response: { 200: Type.Array(FidesWebhook), ...errors },
          },
        },
        async (request) => {
          const list = await webhooks.replace(
            changeActorOf(request),
            request.params.policy_key,
            timing,
            withKeys(request.body),
          );
          request.log.info(
            { policy_key: request.params.policy_key, timing, keys: list.map((webhook) => webhook.key) },
            'policy webhooks replaced',
          );
          return fidesWebhooks(list);
        },
      );

      app.get<SingleRoute>(
        singlePath,
        {
          onRequest: app.authorize('webhook:read'),
          schema: {
            tags,
            summary: `Fides: one ${segment} webhook of the policy.`,
            security,
            params: SingleWebhookParams,
            response: { 200: FidesWebhook, ...errors },
          },
        },
        async (request) => {
          const { policy_key, webhook_key } = request.params;
          const [webhook] = await fidesWebhooks([await webhooks.get(policy_key, timing, webhook_key)]);
          return webhook;
        },
      );

      app.patch<SingleRoute & { Body: FidesWebhookPatchBody }>(
        singlePath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            tags,
            summary: `Fides: change a ${segment} webhook; new_order lists the order only when it changed.`,
            security,
            params: SingleWebhookParams,
            body: FidesWebhookPatchBody,
            response: { 200: FidesWebhookUpdateAnswer, ...errors },
          },
        },
        async (request) => {
          const { policy_key, webhook_key } = request.params;
          if (Object.keys(request.body).length === 0) {
            const [resource] = await fidesWebhooks([await webhooks.get(policy_key, timing, webhook_key)]);
            return { resource, new_order: [] };
          }
          const answer = await webhooks
            .update(changeActorOf(request), policy_key, timing, webhook_key, request.body)
            .catch((error: unknown) => {
              throw error instanceof WebhookOrderError ? badRequest(error.message) : error;
            });
          request.log.info(
            { policy_key, timing, webhook_key, fields: Object.keys(request.body) },
            'policy webhook updated',
          );
          const [resource] = await fidesWebhooks([answer.resource]);
          return { resource, new_order: answer.moved ? answer.new_order : [] };
        },
      );

      app.delete<SingleRoute>(
        singlePath,
        {
          onRequest: app.authorize('webhook:create_or_update'),
          schema: {
            tags,
            summary: `Fides: remove a ${segment} webhook; new_order lists the order when others moved up.`,
            security,
            params: SingleWebhookParams,
            response: { 200: FidesWebhookDeleteAnswer, ...errors },
          },
        },
        async (request) => {
          const { policy_key, webhook_key } = request.params;
          const { removed, new_order } = await webhooks.remove(
            changeActorOf(request),
            policy_key,
            timing,
            webhook_key,
          );
          request.log.info({ policy_key, timing, webhook_key }, 'policy webhook deleted');
          return { new_order: removed.order === new_order.length ? [] : new_order };
        },
      );
    }

    app.get<{ Querystring: FidesPageQuery }>(
      '/dsr/webhook/pre_approval',
      {
        onRequest: app.authorize('webhook:read'),
        schema: {
          tags,
          summary: 'Fides: the pre-approval webhooks, as a page.',
          security,
          querystring: PageQuery,
          response: { 200: Page(FidesPreApprovalWebhook), ...managementErrors },
        },
      },
      async (request) => fidesPage(await fidesPreApprovals(await webhooks.listPreApproval()), request.query),
    );

    app.put<{ Body: FidesPreApprovalItem[] }>(
      '/dsr/webhook/pre_approval',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Fides: replace the pre-approval webhooks; a missing key comes from the name.',
          security,
          body: FidesPreApprovalListBody,
          response: { 200: Type.Array(FidesPreApprovalWebhook), ...errors },
        },
      },
      async (request) => {
        const list = await webhooks.replacePreApproval(changeActorOf(request), withKeys(request.body));
        request.log.info({ keys: list.map((webhook) => webhook.key) }, 'pre-approval webhooks replaced');
        return fidesPreApprovals(list);
      },
    );

    app.get<PreApprovalRoute>(
      '/dsr/webhook/pre_approval/:webhook_key',
      {
        onRequest: app.authorize('webhook:read'),
        schema: {
          tags,
          summary: 'Fides: one pre-approval webhook.',
          security,
          params: PreApprovalParams,
          response: { 200: FidesPreApprovalWebhook, ...errors },
        },
      },
      async (request) => {
        const [webhook] = await fidesPreApprovals([
          await webhooks.getPreApproval(request.params.webhook_key),
        ]);
        return webhook;
      },
    );

    app.patch<PreApprovalRoute & { Body: Type.Static<typeof FidesPreApprovalPatchBody> }>(
      '/dsr/webhook/pre_approval/:webhook_key',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Fides: change the name or the connection of a pre-approval webhook.',
          security,
          params: PreApprovalParams,
          body: FidesPreApprovalPatchBody,
          response: { 200: FidesPreApprovalWebhook, ...errors },
        },
      },
      async (request) => {
        const { webhook_key } = request.params;
        const updated =
          Object.keys(request.body).length === 0
            ? await webhooks.getPreApproval(webhook_key)
            : await webhooks.updatePreApproval(changeActorOf(request), webhook_key, request.body);
        request.log.info({ webhook_key, fields: Object.keys(request.body) }, 'pre-approval webhook updated');
        const [webhook] = await fidesPreApprovals([updated]);
        return webhook;
      },
    );

    app.delete<PreApprovalRoute>(
      '/dsr/webhook/pre_approval/:webhook_key',
      {
        onRequest: app.authorize('webhook:create_or_update'),
        schema: {
          tags,
          summary: 'Fides: remove a pre-approval webhook (answers null, as Fides does).',
          security,
          params: PreApprovalParams,
          response: {
            200: {
              description: 'Removed; the body is JSON null, as Fides answers.',
              content: {
                'application/json': { schema: { type: 'object', nullable: true, enum: [null] } },
              },
            },
            ...errors,
          },
        },
      },
      async (request) => {
        await webhooks.removePreApproval(changeActorOf(request), request.params.webhook_key);
        request.log.info({ webhook_key: request.params.webhook_key }, 'pre-approval webhook deleted');
        return null;
      },
    );

    app.put<{ Params: { connection_key: string }; Body: SecretsBody; Querystring: { verify?: boolean } }>(
      '/connection/:connection_key/secret',
      {
        onRequest: app.authorize('connection:create_or_update'),
        // Fides looks the connection up before it reads the secrets: an unknown key answers 404, whatever
        // the key's spelling or the body, where the schema check would answer 422.
        preValidation: async (request) => {
          await connections.get(request.params.connection_key);
        },
        schema: {
          tags,
          summary:
            "Fides: replace an HTTPS connection's secrets (url, authorization, headers); the connection test is skipped, as Fides skips it for HTTPS.",
          security,
          params: ConnectionKeyParams,
          querystring: FidesSecretQuery,
          body: SecretsBody,
          response: { 200: FidesTestStatusMessage, 404: ErrorDetail, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const key = request.params.connection_key;
        await connections.replaceSecrets(changeActorOf(request), key, request.body);
        request.log.info({ connection_key: key }, 'connection secrets replaced');
        return {
          msg: `Secrets updated for ConnectionConfig with key: ${key}.`,
          test_status: request.query.verify === false ? null : 'skipped',
          failure_reason: null,
        };
      },
    );
  };
}
