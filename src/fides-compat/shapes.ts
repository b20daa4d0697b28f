// Fides' request and answer shapes for the paths Fides scripts call, and the mapping between them and
// Lethe's. Translation only: every rule (ordering, locking, validation of connections, secrets) stays in
// the domain services; this module renames, reshapes and pages.
import Type from 'typebox';
import { badRequest, invalid } from '../errors.ts';
import type { ConnectionView } from '../connections/schemas.ts';
import { Nullable, ResourceKey } from '../validation/bulk.ts';
import { type PageOf, pageOf } from '../validation/page.ts';
import type { PreApprovalView, WebhookView } from '../webhooks/schemas.ts';

const Direction = Type.Enum(['one_way', 'two_way']);
const Name = Type.String({ minLength: 1, maxLength: 200 });

/** Fides' PolicyWebhookCreate: `key` may be left out, Fides then derives it from the name. */
export const FidesWebhookItem = Type.Object(
  {
    connection_config_key: ResourceKey,
    direction: Direction,
    key: Type.Optional(ResourceKey),
    name: Type.Optional(Name),
  },
  { additionalProperties: false },
);
export type FidesWebhookItem = Type.Static<typeof FidesWebhookItem>;
export const FidesWebhookListBody = Type.Array(FidesWebhookItem, { maxItems: 50 });

/** Fides' PolicyWebhookUpdate: every field optional, `{}` changes nothing; an order out of range is 400. */
export const FidesWebhookPatchBody = Type.Object(
  {
    direction: Type.Optional(Direction),
    name: Type.Optional(Name),
    connection_config_key: Type.Optional(ResourceKey),
    order: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false },
);
export type FidesWebhookPatchBody = Type.Static<typeof FidesWebhookPatchBody>;

export const FidesPreApprovalItem = Type.Object(
  { connection_config_key: ResourceKey, key: Type.Optional(ResourceKey), name: Type.Optional(Name) },
  { additionalProperties: false },
);
export type FidesPreApprovalItem = Type.Static<typeof FidesPreApprovalItem>;
export const FidesPreApprovalListBody = Type.Array(FidesPreApprovalItem, { maxItems: 50 });

export const FidesPreApprovalPatchBody = Type.Object(
  { name: Type.Optional(Name), connection_config_key: Type.Optional(ResourceKey) },
  { additionalProperties: false },
);
export type FidesPreApprovalPatchBody = Type.Static<typeof FidesPreApprovalPatchBody>;

/** fastapi-pagination's query: page from 1, size 1..100, default 50. */
export const FidesPageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
export type FidesPageQuery = Type.Static<typeof FidesPageQuery>;

export const FidesSecretQuery = Type.Object({ verify: Type.Optional(Type.Boolean({ default: true })) });

/** Fides' ConnectionConfigurationResponse as it embeds in webhook answers (its secrets are never shown). */
export const FidesConnectionEmbed = Type.Object({
  name: Type.String(),
  key: Type.String(),
  connection_type: Type.String(),
  access: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  last_test_timestamp: Type.Null(),
  last_test_succeeded: Type.Null(),
  disabled: Type.Boolean(),
  description: Nullable(Type.String()),
  saas_config: Type.Null(),
  secrets: Type.Null(),
  authorized: Type.Boolean(),
  enabled_actions: Type.Null(),
});
export type FidesConnectionEmbed = Type.Static<typeof FidesConnectionEmbed>;

export const FidesWebhook = Type.Object({
  direction: Type.String(),
  key: Type.String(),
  name: Type.String(),
  connection_config: FidesConnectionEmbed,
  order: Type.Integer(),
});
export type FidesWebhook = Type.Static<typeof FidesWebhook>;

export const FidesPreApprovalWebhook = Type.Object({
  key: Type.String(),
  name: Type.String(),
  connection_config: FidesConnectionEmbed,
});
export type FidesPreApprovalWebhook = Type.Static<typeof FidesPreApprovalWebhook>;

const WebhookOrder = Type.Object({ key: Type.String(), order: Type.Integer() });
export const FidesWebhookUpdateAnswer = Type.Object({
  resource: FidesWebhook,
  new_order: Type.Array(WebhookOrder),
});
export const FidesWebhookDeleteAnswer = Type.Object({ new_order: Type.Array(WebhookOrder) });

/** Fides' TestStatusMessage, the answer of the secret PUT. */
export const FidesTestStatusMessage = Type.Object({
  msg: Type.String(),
  test_status: Nullable(Type.Enum(['succeeded', 'failed', 'skipped'])),
  failure_reason: Nullable(Type.String()),
});

/** One page of an already complete list (webhook lists hold at most 50). */
export function fidesPage<T>(all: readonly T[], query: FidesPageQuery): PageOf<T> {
  const page = query.page ?? 1;
  const size = query.size ?? 50;
  return pageOf(all.slice((page - 1) * size, page * size), all.length, page, size);
}

export function fidesConnectionEmbed(connection: ConnectionView): FidesConnectionEmbed {
  return {
    name: connection.name,
    key: connection.key,
    connection_type: connection.connection_type,
    access: connection.access,
    created_at: connection.created_at,
    updated_at: connection.updated_at,
    last_test_timestamp: null,
    last_test_succeeded: null,
    disabled: false,
    description: connection.description,
    saas_config: null,
    secrets: null,
    authorized: false,
    enabled_actions: null,
  };
}

export function toFidesWebhook(webhook: WebhookView, connection: ConnectionView): FidesWebhook {
  return {
    direction: webhook.direction,
    key: webhook.key,
    name: webhook.name,
    connection_config: fidesConnectionEmbed(connection),
    order: webhook.order,
  };
}

export function toFidesPreApproval(
  webhook: PreApprovalView,
  connection: ConnectionView,
): FidesPreApprovalWebhook {
  return { key: webhook.key, name: webhook.name, connection_config: fidesConnectionEmbed(connection) };
}

/** Fides' key for an item sent without one: its name in snake case ("My Pre-Approval Hook" -> my_pre_approval_hook). */
export function fidesKeyFromName(name: string): string {
  // Runs of other characters become one underscore, so at most one is left at either end to drop.
  const snake = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  const start = snake.startsWith('_') ? 1 : 0;
  const end = snake.endsWith('_') ? snake.length - 1 : snake.length;
  return snake.slice(start, Math.max(start, end)).slice(0, 100);
}

/**
 * Gives every item its key and name, as Fides does: a missing key is made from the name, a missing name is
 * the key; an item with neither is 422. Refuses, as Fides does with 400, a list where two items resolve to
 * the same key or share a name.
 */
export function withKeys<T extends { key?: string; name?: string }>(
  items: readonly T[],
): (T & { key: string; name: string })[] {
  const keyed = items.map((item, index) => {
    const key = item.key ?? fidesKeyFromName(item.name ?? '');
    if (key === '') {
      throw invalid(
        item.name === undefined
          ? `body.${index} needs a key or a name.`
          : `body.${index}.name has no letter or digit to make a key of; send a key.`,
      );
    }
    return { ...item, key, name: item.name ?? key };
  });
  const keys = new Set(keyed.map((item) => item.key));
  const names = new Set(keyed.map((item) => item.name));
  if (keys.size !== keyed.length || names.size !== keyed.length) {
    throw badRequest(
      'Check request body: there are multiple webhooks whose keys or names resolve to the same value.',
    );
  }
  return keyed;
}
