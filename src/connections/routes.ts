// HTTP face of the connections: schemas, scopes and status codes only; the rules live in ConnectionService.
// Log lines name the connection key and what changed, never a submitted value.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, OPTIONAL_BODY, Page, PageQuery, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { BulkBody, BulkResponse } from '../validation/bulk.ts';
import {
  ConnectionItem,
  ConnectionKeyParams,
  ConnectionUpsertView,
  ConnectionView,
  OAuthBody,
  OAuthPatchBody,
  SecretsBody,
  SigningSecretAnswer,
  SigningSecretRotationBody,
} from './schemas.ts';
import { ConnectionService } from './service.ts';

const tags = ['connections'];
type KeyParams = { connection_key: string };

export function connectionRoutes(services: Services): FastifyPluginAsync {
  const connections = new ConnectionService(services);
  return async (app) => {
    app.patch<{ Body: unknown[] }>(
      '/connection',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary:
            'Create or update up to 50 connections; each item succeeds or fails on its own. A created connection shows its signing_secret once.',
          security,
          body: BulkBody(ConnectionItem),
          response: { 200: BulkResponse(ConnectionUpsertView), ...managementErrors },
        },
      },
      async (request) => {
        const result = await connections.upsert(changeActorOf(request), request.body);
        request.log.info(
          { succeeded: result.succeeded.map((connection) => connection.key), failed: result.failed.length },
          'connections upserted',
        );
        return result;
      },
    );

    app.get<{ Querystring: { page?: number; size?: number } }>(
      '/connection',
      {
        onRequest: app.authorize('connection:read'),
        schema: {
          tags,
          summary: 'List connections by key, paged.',
          security,
          querystring: PageQuery,
          response: { 200: Page(ConnectionView), ...managementErrors },
        },
      },
      async (request) => connections.list(request.query.page ?? 1, request.query.size ?? 50),
    );

    app.get<{ Params: KeyParams }>(
      '/connection/:connection_key',
      {
        onRequest: app.authorize('connection:read'),
        schema: {
          tags,
          summary: 'One connection, secrets masked.',
          security,
          params: ConnectionKeyParams,
          response: { 200: ConnectionView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => connections.get(request.params.connection_key),
    );

    app.delete<{ Params: KeyParams }>(
      '/connection/:connection_key',
      {
        onRequest: app.authorize('connection:delete'),
        schema: {
          tags,
          summary: 'Delete a connection; 409 while a policy or pre-approval webhook uses it.',
          security,
          params: ConnectionKeyParams,
          response: { 204: Type.Null(), 404: ErrorDetail, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await connections.remove(changeActorOf(request), request.params.connection_key);
        request.log.info({ connection_key: request.params.connection_key }, 'connection deleted');
        return reply.status(204).send();
      },
    );

    app.put<{ Params: KeyParams; Body: SecretsBody }>(
      '/connection/:connection_key',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary:
            'Replace the secrets: the callback url (https, not internal) and the optional Authorization header value.',
          security,
          params: ConnectionKeyParams,
          body: SecretsBody,
          response: { 200: ConnectionView, 404: ErrorDetail, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const answer = await connections.replaceSecrets(
          changeActorOf(request),
          request.params.connection_key,
          request.body,
        );
        request.log.info({ connection_key: request.params.connection_key }, 'connection secrets replaced');
        return answer;
      },
    );

    app.put<{ Params: KeyParams; Body: OAuthBody }>(
      '/connection/:connection_key/oauth',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary: 'Set the OAuth 2.0 client-credentials configuration (all five fields).',
          security,
          params: ConnectionKeyParams,
          body: OAuthBody,
          response: { 200: ConnectionView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const answer = await connections.replaceOAuth(
          changeActorOf(request),
          request.params.connection_key,
          request.body,
        );
        request.log.info({ connection_key: request.params.connection_key }, 'connection oauth replaced');
        return answer;
      },
    );

    app.patch<{ Params: KeyParams; Body: OAuthPatchBody }>(
      '/connection/:connection_key/oauth',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary:
            'Change only the given OAuth fields; on a connection without OAuth a complete body creates it (incomplete: 422).',
          security,
          params: ConnectionKeyParams,
          body: OAuthPatchBody,
          response: { 200: ConnectionView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const answer = await connections.updateOAuth(
          changeActorOf(request),
          request.params.connection_key,
          request.body,
        );
        request.log.info(
          { connection_key: request.params.connection_key, fields: Object.keys(request.body) },
          'connection oauth updated',
        );
        return answer;
      },
    );

    app.delete<{ Params: KeyParams }>(
      '/connection/:connection_key/oauth',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary: 'Remove the OAuth configuration; callbacks then use the authorization secret, if any.',
          security,
          params: ConnectionKeyParams,
          response: { 200: ConnectionView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const answer = await connections.deleteOAuth(changeActorOf(request), request.params.connection_key);
        request.log.info({ connection_key: request.params.connection_key }, 'connection oauth deleted');
        return answer;
      },
    );

    app.post<{ Params: KeyParams; Body: SigningSecretRotationBody }>(
      '/connection/:connection_key/signing-secret',
      {
        // The body is optional: a bare POST rotates with the defaults.
        preValidation: async (request) => {
          request.body ??= {};
        },
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags,
          summary:
            'Rotate the callback signing secret; the answer shows the new one once. Body optional: {grace_period_seconds}.',
          security,
          params: ConnectionKeyParams,
          body: SigningSecretRotationBody,
          ...OPTIONAL_BODY,
          response: { 200: SigningSecretAnswer, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const gracePeriodSeconds = request.body.grace_period_seconds ?? 0;
        const answer = await connections.rotateSigningSecret(
          changeActorOf(request),
          request.params.connection_key,
          gracePeriodSeconds,
        );
        request.log.info(
          { connection_key: request.params.connection_key, grace_period_seconds: gracePeriodSeconds },
          'connection signing secret rotated',
        );
        return answer;
      },
    );
  };
}
