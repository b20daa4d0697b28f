// HTTP face of the event subscriptions and of the event catalogue they name (docs/events.md): schemas,
// scopes and status codes only; the rules live in EventSubscriptionService, the catalogue in catalog.ts.
// Log lines name the key, never the URL or the secret.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, OPTIONAL_BODY, Page, PageQuery, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { describeEventTypes } from './catalog.ts';
import {
  DeliveryParams,
  DeliveryView,
  EventTypeList,
  SecretAnswer,
  SubscriptionBody,
  SubscriptionCreated,
  SubscriptionKeyParams,
  SubscriptionView,
} from './schemas.ts';
import { EventSubscriptionService } from './service.ts';

const tags = ['event-subscriptions'];
type KeyParams = { key: string };

export function eventSubscriptionRoutes(services: Services): FastifyPluginAsync {
  const subscriptions = new EventSubscriptionService(services);
  return async (app) => {
    app.get(
      '/event-type',
      {
        // The catalogue is what a subscription may name: read with the subscriptions' own read scope.
        onRequest: app.authorize('event-subscription:read'),
        schema: {
          tags,
          summary:
            'The events a subscription may name, in catalogue order, each with its title and CloudEvents type.',
          security,
          response: { 200: EventTypeList, ...managementErrors },
        },
      },
      async () => ({ items: describeEventTypes() }),
    );

    app.get<{ Querystring: { page?: number; size?: number } }>(
      '/event-subscription',
      {
        onRequest: app.authorize('event-subscription:read'),
        schema: {
          tags,
          summary: 'List event subscriptions by key, paged.',
          security,
          querystring: PageQuery,
          response: { 200: Page(SubscriptionView), ...managementErrors },
        },
      },
      async (request) => subscriptions.list(request.query.page ?? 1, request.query.size ?? 50),
    );

    app.get<{ Params: KeyParams }>(
      '/event-subscription/:key',
      {
        onRequest: app.authorize('event-subscription:read'),
        schema: {
          tags,
          summary: 'One event subscription (its URL masked, never its secret).',
          security,
          params: SubscriptionKeyParams,
          response: { 200: SubscriptionView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => subscriptions.get(request.params.key),
    );

    app.put<{ Params: KeyParams; Body: SubscriptionBody }>(
      '/event-subscription/:key',
      {
        onRequest: app.authorize('event-subscription:update'),
        schema: {
          tags,
          summary:
            'Create (201, with its signing secret shown once) or replace (200) an event subscription: url, events, format (cloudevents, slack, teams), enabled.',
          security,
          params: SubscriptionKeyParams,
          body: SubscriptionBody,
          response: {
            200: SubscriptionView,
            201: SubscriptionCreated,
            404: ErrorDetail,
            ...managementErrors,
          },
        },
      },
      async (request, reply) => {
        const answer = await subscriptions.put(changeActorOf(request), request.params.key, request.body);
        request.log.info(
          { key: request.params.key, created: answer.created },
          answer.created ? 'event subscription created' : 'event subscription updated',
        );
        reply.header('cache-control', 'no-store');
        return reply.status(answer.created ? 201 : 200).send(answer.view);
      },
    );

    app.delete<{ Params: KeyParams }>(
      '/event-subscription/:key',
      {
        onRequest: app.authorize('event-subscription:update'),
        schema: {
          tags,
          summary: 'Delete an event subscription and its delivery log.',
          security,
          params: SubscriptionKeyParams,
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await subscriptions.remove(changeActorOf(request), request.params.key);
        request.log.info({ key: request.params.key }, 'event subscription deleted');
        return reply.status(204).send();
      },
    );

    app.post<{ Params: KeyParams }>(
      '/event-subscription/:key/rotate-secret',
      {
        onRequest: app.authorize('event-subscription:update'),
        schema: {
          tags,
          summary: 'Make a new signing secret, shown this once; the previous one stops signing now.',
          security,
          params: SubscriptionKeyParams,
          ...OPTIONAL_BODY,
          response: { 200: SecretAnswer, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        const answer = await subscriptions.rotateSecret(changeActorOf(request), request.params.key);
        request.log.info({ key: request.params.key }, 'event subscription secret rotated');
        reply.header('cache-control', 'no-store');
        return answer;
      },
    );

    app.get<{ Params: KeyParams; Querystring: { page?: number; size?: number } }>(
      '/event-subscription/:key/delivery',
      {
        onRequest: app.authorize('event-subscription:read'),
        schema: {
          tags,
          summary:
            "The subscription's deliveries, newest first, with each attempt (answer code, time, error).",
          security,
          params: SubscriptionKeyParams,
          querystring: PageQuery,
          response: { 200: Page(DeliveryView), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) =>
        subscriptions.deliveries(request.params.key, request.query.page ?? 1, request.query.size ?? 50),
    );

    app.post<{ Params: { key: string; delivery_id: string } }>(
      '/event-subscription/:key/delivery/:delivery_id/redeliver',
      {
        onRequest: app.authorize('event-subscription:update'),
        schema: {
          tags,
          summary:
            'Send a delivery again under the same webhook-id (now, then retried for 24 hours if it fails).',
          security,
          params: DeliveryParams,
          ...OPTIONAL_BODY,
          response: { 202: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await subscriptions.redeliver(changeActorOf(request), request.params.key, request.params.delivery_id);
        request.log.info({ key: request.params.key }, 'event delivery queued again');
        return reply.status(202).send();
      },
    );
  };
}
