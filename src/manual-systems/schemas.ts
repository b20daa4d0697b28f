// Shapes of a manual system: a system without an API that a person answers for (docs/human-steps.md).
// Every bound is here: 1 to 50 fields with unique names, instructions up to 10,000 characters.
import Type from 'typebox';
import { MAX_EMAIL_LENGTH } from '../validation/email.ts';
import { named } from '../validation/schema-names.ts';

const Strict = { additionalProperties: false } as const;

export const MANUAL_SYSTEM_KEY_PATTERN = '^[A-Za-z0-9_-]{1,100}$';
export const FIELD_NAME_PATTERN = '^[a-z][a-z0-9_]{0,63}$';
export const MAX_FIELDS = 50;
export const MAX_INSTRUCTIONS = 10_000;
/** An identity kind: email, phone_number or a custom identity's key. */
export const IDENTITY_KIND_PATTERN = '^[a-z_][a-z0-9_]{0,63}$';

const Identities = Type.Array(Type.String({ pattern: IDENTITY_KIND_PATTERN }), {
  maxItems: 10,
  uniqueItems: true,
  description:
    "the subject's identifiers the person answering needs to find the record (email, phone_number or a custom identity's key); the respondent's page shows the request's values of these kinds only",
});

/**
 * `{<language>: {instructions: text}}`: the instructions in other languages (src/i18n/operator-texts.ts); the
 * service names an unknown language or key.
 */
const Translations = Type.Record(
  Type.String({ maxLength: 16 }),
  Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: MAX_INSTRUCTIONS })),
  {
    maxProperties: 40,
    description:
      'The instructions in other languages: {"de": {"instructions": "…"}}; the respondent\'s page and mails of a request in a language without one read `instructions`.',
  },
);

export const ManualAction = Type.Union([Type.Literal('access'), Type.Literal('erasure')]);
export type ManualAction = Type.Static<typeof ManualAction>;

export const ManualField = Type.Object(
  {
    name: Type.String({ pattern: FIELD_NAME_PATTERN, description: 'unique within the system' }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
  },
  Strict,
);
export type ManualField = Type.Static<typeof ManualField>;

export const ManualSystemKeyParams = Type.Object(
  { key: Type.String({ pattern: MANUAL_SYSTEM_KEY_PATTERN }) },
  Strict,
);

export const ManualSystemInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    actions: Type.Array(ManualAction, { minItems: 1, maxItems: 2, uniqueItems: true }),
    fields: Type.Array(ManualField, { minItems: 1, maxItems: MAX_FIELDS }),
    instructions: Type.String({ maxLength: MAX_INSTRUCTIONS }),
    assignee: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
        description: "an operator's username: the owner of this system's tasks",
      }),
    ),
    respondent_email: Type.Optional(
      Type.Union([Type.String({ format: 'email', maxLength: MAX_EMAIL_LENGTH }), Type.Null()], {
        description: 'someone outside the company who answers through a link (POST /v1/task/{id}/invite)',
      }),
    ),
    identities: Type.Optional(Identities),
    translations: Type.Optional(Translations),
  },
  Strict,
);
export type ManualSystemInput = Type.Static<typeof ManualSystemInput>;

export const ManualSystemView = named(
  'ManualSystem',
  Type.Object(
    {
      key: Type.String(),
      name: Type.String(),
      actions: Type.Array(ManualAction),
      fields: Type.Array(ManualField),
      instructions: Type.String(),
      assignee: Type.Union([Type.String(), Type.Null()]),
      respondent_email: Type.Union([Type.String(), Type.Null()]),
      identities: Identities,
      translations: Translations,
      created_at: Type.String({ format: 'date-time' }),
      updated_at: Type.String({ format: 'date-time' }),
    },
    Strict,
  ),
);
export type ManualSystemView = Type.Static<typeof ManualSystemView>;
