// Shapes of the webhook endpoints. The embedded connection shows only its identity, never its secrets.
import Type from 'typebox';
import { named } from '../validation/schema-names.ts';
import { MAX_BULK_ITEMS, ResourceKey } from '../validation/bulk.ts';

export const MAX_WEBHOOKS = MAX_BULK_ITEMS;

const Direction = Type.Enum(['one_way', 'two_way']);
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const WebhookItem = Type.Object(
  { connection_config_key: ResourceKey, direction: Direction, key: ResourceKey, name: Name },
  { additionalProperties: false },
);
export type WebhookItem = Type.Static<typeof WebhookItem>;

export const WebhookListBody = Type.Array(WebhookItem, { maxItems: MAX_WEBHOOKS });

export const WebhookPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    direction: Type.Optional(Direction),
    connection_config_key: Type.Optional(ResourceKey),
    order: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type WebhookPatchBody = Type.Static<typeof WebhookPatchBody>;

export const PreApprovalItem = Type.Object(
  { connection_config_key: ResourceKey, key: ResourceKey, name: Name },
  { additionalProperties: false },
);
export type PreApprovalItem = Type.Static<typeof PreApprovalItem>;

export const PreApprovalPatchBody = Type.Object(
  { name: Type.Optional(Name), connection_config_key: Type.Optional(ResourceKey) },
  { additionalProperties: false, minProperties: 1 },
);
export type PreApprovalPatchBody = Type.Static<typeof PreApprovalPatchBody>;

export const PreApprovalListBody = Type.Array(PreApprovalItem, { maxItems: MAX_WEBHOOKS });

export const PolicyWebhookParams = Type.Object({ policy_key: ResourceKey });
export const SingleWebhookParams = Type.Object({ policy_key: ResourceKey, webhook_key: ResourceKey });

const EmbeddedConnection = Type.Object({
  key: Type.String(),
  name: Type.String(),
  connection_type: Type.String(),
  access: Type.String(),
});

export const WebhookView = Type.Object({
  key: Type.String(),
  name: Type.String(),
  direction: Type.String(),
  order: Type.Integer(),
  connection_config_key: Type.String(),
  connection_config: EmbeddedConnection,
});
named('PolicyWebhook', WebhookView);
export type WebhookView = Type.Static<typeof WebhookView>;

export const PreApprovalView = Type.Object({
  key: Type.String(),
  name: Type.String(),
  order: Type.Integer(),
  connection_config_key: Type.String(),
  connection_config: EmbeddedConnection,
});
named('PreApprovalWebhook', PreApprovalView);
export type PreApprovalView = Type.Static<typeof PreApprovalView>;

export const WebhookOrder = Type.Object({ key: Type.String(), order: Type.Integer() });

export const ReorderView = Type.Object({ resource: WebhookView, new_order: Type.Array(WebhookOrder) });

export const DeletedView = Type.Object({ new_order: Type.Array(WebhookOrder) });

export const PreApprovalParams = Type.Object({ webhook_key: ResourceKey });
