// Shapes of the DSR policy and rule endpoints. Masking strategies and their configuration shapes come from
// their registry (src/masking/strategies.ts), action types from theirs (src/actions/registry.ts: the rule's
// shape is built from it, again after a registration); a configuration is checked after the strategy is known.
import Type from 'typebox';
import { actionTypeNames, actionTypes, fromRegistry } from '../actions/registry.ts';
import { JURISDICTION_CODES } from '../deadlines/jurisdictions.ts';
import { named } from '../validation/schema-names.ts';
import { MASKING_STRATEGY_NAMES } from '../masking/strategies.ts';
import { Nullable, ResourceKey } from '../validation/bulk.ts';
import { PATTERN_HINT } from '../validation/messages.ts';

export const POLICY_FIELDS = ['name', 'key', 'drp_action', 'execution_timeframe', 'jurisdiction'] as const;

// A code's shape here; whether it is a built-in rule is checked by the service, whose sentence names it.
const Jurisdiction = Nullable(
  Type.String({
    minLength: 1,
    maxLength: 40,
    description: `The jurisdiction (GET /v1/jurisdiction: ${JURISDICTION_CODES.join(', ')}) whose deadlines apply to its requests whose location names none.`,
  }),
);
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
    jurisdiction: Type.Optional(Jurisdiction),
  },
  { additionalProperties: false },
);
export type PolicyItem = Type.Static<typeof PolicyItem>;

/** A strategy as GET /v1/masking/strategy answers it (Fides' shape: name, description, configurations). */
export const MaskingStrategyDescription = Type.Object({
  name: Type.String(),
  description: Type.String(),
  effect: Type.Enum(['rewrite', 'delete', 'forget'], {
    description: 'rewrite: values change in place; delete: attributes go; forget: entities go',
  }),
  configurations: Type.Array(
    Type.Object({ key: Type.String(), optional: Type.Boolean(), description: Type.String() }),
  ),
});

/** An action type as GET /v1/action-type answers it (src/actions/registry.ts). */
export const ActionTypeDescription = Type.Object({
  name: Type.String(),
  description: Type.String(),
  rank: Type.Integer({
    description: 'the highest ranked action of a policy names its requests (erasure first)',
  }),
  records_category: Type.Enum(['know', 'delete', 'opt_out', 'correct'], {
    description: 'what the records count its requests as (CCPA regs §7102)',
  }),
  rule: Type.Object(
    {
      storage_destination: Type.Boolean(),
      masking_strategy: Type.Boolean(),
      targets: Type.Boolean(),
    },
    { description: 'what a rule of this type takes besides its name and key' },
  ),
  request_field: Nullable(
    Type.String({ description: 'the field of a privacy request that gives what this action needs' }),
  ),
  needs_person: Type.Object(
    { public: Type.Boolean(), operator: Type.Boolean() },
    {
      description:
        "whether a request waits for an operator's approval, from the public and from an operator's client, under this installation's configuration",
    },
  ),
  yields_download: Type.Boolean({
    description: 'whether the subject of a completed request gets a download link',
  }),
});

/** `*`, `<table>.*` or `<table>.<attribute>`. */
export const TARGET_PATTERN = '^(\\*|[A-Za-z_][\\w-]*\\.(\\*|[A-Za-z_][\\w-]*))$';

/** A rule as a client sends it; its action_type is one of the registered action types. */
export const ruleItem = fromRegistry(() =>
  Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 200 }),
      key: ResourceKey,
      action_type: Type.Enum(actionTypeNames(), {
        description: actionTypes()
          .map((definition) => `${definition.name}: ${definition.description}`)
          .join(' '),
      }),
      masking_strategy: Type.Optional(
        Type.Object(
          {
            strategy: Type.Enum([...MASKING_STRATEGY_NAMES]),
            configuration: Type.Optional(
              Type.Object(
                {},
                {
                  additionalProperties: true,
                  description: "Depends on the strategy: see GET /v1/masking/strategy for each one's schema.",
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
  ),
);
export interface RuleItem {
  name: string;
  key: string;
  action_type: string;
  masking_strategy?: {
    strategy: (typeof MASKING_STRATEGY_NAMES)[number];
    configuration?: Record<string, unknown>;
  };
  storage_destination_key?: string;
  targets?: string[];
}

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
named('Rule', RuleView);
export type RuleView = Type.Static<typeof RuleView>;

export const PolicyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String(),
  drp_action: Nullable(Type.String()),
  execution_timeframe: Type.Integer(),
  jurisdiction: Jurisdiction,
  client_id: Nullable(Type.String()),
  rules: Type.Array(RuleView),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
named('Policy', PolicyView);
export type PolicyView = Type.Static<typeof PolicyView>;
