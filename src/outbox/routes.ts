// GET /v1/outbox: the messages to data subjects, newest first, opened for operators (scope
// privacy-request:read, who already read the requests' identities). Without LETHE_SMTP_URL this is where
// the verification codes and download links of `npm start` are read, by owners: for anyone else they are
// masked (body-mask.ts). A delivered message has no body any more (`body_purged`, text and html null) and
// shows its recipient masked; its subject, kind, state, attempts and times stay.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { principalOf } from '../http/authorize.ts';
import { managementErrors, Page, security } from '../http/schemas.ts';
import { pageOf } from '../validation/page.ts';
import type { Services } from '../services.ts';
import { seesOutboxSecrets } from './body-mask.ts';
import { outboxMessageView } from './listing.ts';
import { MESSAGE_KINDS, outboxRepository as repo } from './repository.ts';

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const OutboxMessageView = Type.Object({
  id: Type.String(),
  privacy_request_id: Nullable(Type.String()),
  kind: Type.Union(MESSAGE_KINDS.map((kind) => Type.Literal(kind))),
  state: Type.Union([Type.Literal('pending'), Type.Literal('sent')]),
  to: Type.String(),
  subject: Type.String(),
  text: Nullable(Type.String({ description: 'null once delivered (body_purged)' })),
  html: Nullable(Type.String({ description: 'null once delivered (body_purged)' })),
  body_purged: Type.Boolean({ description: 'the message was delivered and its bodies removed' }),
  attempts: Type.Integer(),
  next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  sent_at: Nullable(Type.String({ format: 'date-time' })),
});

const OutboxQuery = Type.Object(
  {
    privacy_request_id: Type.Optional(Type.String({ maxLength: 200 })),
    state: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('sent')])),
    page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

export function outboxRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: Type.Static<typeof OutboxQuery> }>(
      '/outbox',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags: ['outbox'],
          summary: 'Messages to data subjects, newest first, with their delivery state.',
          security,
          querystring: OutboxQuery,
          response: { 200: Page(OutboxMessageView), ...managementErrors },
        },
      },
      async (request, reply) => {
        const filter = { privacyRequestId: request.query.privacy_request_id, state: request.query.state };
        const page = request.query.page ?? 1;
        const size = request.query.size ?? 50;
        const [rows, total] = await Promise.all([
          repo.page(services.db, filter, size, (page - 1) * size),
          repo.count(services.db, filter),
        ]);
        reply.header('cache-control', 'no-store');
        const owner = seesOutboxSecrets(principalOf(request), services.config.rootClient?.id);
        const items = rows.map((row) => outboxMessageView(services.keyring, row, owner));
        return pageOf(items, total, page, size);
      },
    );
  };
}
