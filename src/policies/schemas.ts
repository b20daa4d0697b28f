// Shapes of the DSR policy and rule endpoints. Masking strategies are those of docs/rule-execution.md; each has its
// own configuration shape, checked after the strategy name is known.
import Type from 'typebox';
import { Nullable, ResourceKey } from '../validation/bulk.ts';
import { PATTERN_HINT } from '../validation/messages.ts';

export const POLICY_FIELDS = ['name', 'key', 'drp_action', 'execution_timeframe'] as const;
export const RULE_FIELDS = [
  'name',
  'key',
  'action_type',
  'masking_strategy',
  'storage_destination_key',
  'targets',
] as const;

export const PolicyItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    key: ResourceKey,
    drp_action: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
    execution_timeframe: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
  },
  { additionalProperties: false },
);
export type PolicyItem = Type.Static<typeof PolicyItem>;

export const MASKING_STRATEGIES = [
  'nullify',
  'delete',
  'forget',
  'hash',
  'random_string',
  'string_rewrite',
] as const;
export type MaskingStrategyName = (typeof MASKING_STRATEGIES)[number];

const NoConfiguration = Type.Object({}, { additionalProperties: false });

/** The configuration each strategy accepts; an omitted configuration is checked as `{}`. */
export const STRATEGY_CONFIGURATIONS = {
  nullify: NoConfiguration,
  delete: NoConfiguration,
  forget: NoConfiguration,
  hash: Type.Object(
    { salt: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
    { additionalProperties: false },
  ),
  random_string: Type.Object(
    { length: Type.Optional(Type.Integer({ minimum: 1, maximum: 256 })) },
    { additionalProperties: false },
  ),
  string_rewrite: Type.Object(
    { rewrite_value: Type.String({ maxLength: 10000 }) },
    { additionalProperties: false },
  ),
} satisfies Record<MaskingStrategyName, Type.TSchema>;

/** `*`, `<table>.*` or `<table>.<attribute>`. */
export const TARGET_PATTERN = '^(\\*|[A-Za-z_][\\w-]*\\.(\\*|[A-Za-z_][\\w-]*))$';

export const RuleItem = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    key: ResourceKey,
    action_type: Type.Enum(['access', 'erasure']),
    masking_strategy: Type.Optional(
      Type.Object(
        {
          strategy: Type.Enum([...MASKING_STRATEGIES]),
          configuration: Type.Optional(
            Type.Object(
              {},
              {
                additionalProperties: true,
                description:
                  'Depends on the strategy: hash {salt?}, random_string {length?}, string_rewrite {rewrite_value}; none for nullify, delete and forget.',
              },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    storage_destination_key: Type.Optional(ResourceKey),
    targets: Type.Optional(
      Type.Array(
        Type.String({
          pattern: TARGET_PATTERN,
          maxLength: 300,
          [PATTERN_HINT]: 'be *, <table>.* or <table>.<attribute>',
        }),
        { minItems: 1, maxItems: 200 },
      ),
    ),
  },
  { additionalProperties: false },
);
export type RuleItem = Type.Static<typeof RuleItem>;

export const PolicyKeyParams = Type.Object({ policy_key: ResourceKey });

export const MaskingStrategyView = Type.Object({
  strategy: Type.String(),
  configuration: Type.Object({}, { additionalProperties: true }),
});

export const RuleView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  action_type: Type.String(),
  masking_strategy: Nullable(MaskingStrategyView),
  storage_destination_id: Nullable(Type.String()),
  storage_destination_key: Nullable(Type.String()),
  targets: Type.Array(Type.String()),
});
export type RuleView = Type.Static<typeof RuleView>;

export const PolicyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  drp_action: Nullable(Type.String()),
  execution_timeframe: Type.Integer(),
  client_id: Nullable(Type.String()),
  rules: Type.Array(RuleView),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type PolicyView = Type.Static<typeof PolicyView>;
