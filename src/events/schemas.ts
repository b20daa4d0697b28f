// The shapes of the event-subscription API, shared by its routes and its service.
import Type from 'typebox';
import { ResourceKey } from '../validation/bulk.ts';
import { EVENT_FORMATS, EVENT_TYPES } from './catalog.ts';

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const SubscriptionKeyParams = Type.Object({ key: ResourceKey });
export const DeliveryParams = Type.Object({ key: ResourceKey, delivery_id: Type.String({ maxLength: 100 }) });

export const SubscriptionBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2000,
      description:
        'Where events are posted: https, not an internal address (the connections rules). Sending back the masked URL a GET showed keeps the stored one.',
    }),
    events: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: EVENT_TYPES.length,
      description: `The events to send, among: ${EVENT_TYPES.join(', ')}.`,
    }),
    format: Type.String({
      maxLength: 40,
      description: `How each event is written: ${EVENT_FORMATS.join(', ')}.`,
    }),
    enabled: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type SubscriptionBody = Type.Static<typeof SubscriptionBody>;

export const SubscriptionView = Type.Object({
  key: Type.String(),
  url: Type.String({ description: 'The host only; the rest of the URL (it often holds a token) is masked.' }),
  events: Type.Array(Type.String()),
  format: Type.String(),
  enabled: Type.Boolean(),
  consecutive_failures: Type.Integer({
    description: 'Failed attempts in a row; at 50 the subscription is disabled.',
  }),
  disabled_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type SubscriptionView = Type.Static<typeof SubscriptionView>;

export const SubscriptionCreated = Type.Intersect([
  SubscriptionView,
  Type.Object({
    secret: Type.String({
      description: 'The signing secret (whsec_ and standard base64), shown this once: keep it now.',
    }),
  }),
]);

export const SecretAnswer = Type.Object({
  key: Type.String(),
  secret: Type.String({
    description: 'The new signing secret, shown this once; the previous one stops now.',
  }),
});

export const AttemptView = Type.Object({
  attempt: Type.Integer(),
  attempted_at: Type.String({ format: 'date-time' }),
  status_code: Nullable(Type.Integer({ description: "The receiver's answer; null when no answer came." })),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
});

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'The webhook-id: the same on every attempt and redelivery.' }),
  event_id: Type.String({ description: 'The CloudEvents id, shared by the deliveries of one event.' }),
  event_type: Type.String(),
  subject: Type.String(),
  privacy_request_id: Type.String(),
  occurred_at: Type.String({ format: 'date-time' }),
  state: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  delivered_at: Nullable(Type.String({ format: 'date-time' })),
  last_status_code: Nullable(Type.Integer()),
  last_error: Nullable(Type.String()),
  attempts: Type.Array(AttemptView),
});

/** An event of the catalogue as GET /v1/event-type answers it (src/events/catalog.ts). */
export const EventTypeView = Type.Object({
  type: Type.Enum([...EVENT_TYPES], { description: 'The name a subscription lists in its events.' }),
  title: Type.String({ description: 'The headline a chat message and the digest give it.' }),
  cloudevents_type: Type.String({
    description: 'The CloudEvents type attribute of its deliveries in the cloudevents format.',
  }),
});

export const EventTypeList = Type.Object({
  items: Type.Array(EventTypeView, {
    description: 'Every event a subscription may name, in catalogue order.',
  }),
});
