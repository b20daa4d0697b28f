// The privacy center's settings: which policies the public may request, under which title, with which
// identity fields, and the organisation's name that signs every page and message. Bounds keep every
// field small.
import Type from 'typebox';

const Strict = { additionalProperties: false } as const;

/** `{<language>: {<field>: text}}`: an operator's text in other languages (src/i18n/operator-texts.ts). */
const Translations = (description: string) =>
  Type.Optional(
    Type.Record(
      Type.String({ maxLength: 16 }),
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 2000 })),
      { description, maxProperties: 40 },
    ),
  );

const InputRequirement = Type.Union([Type.Literal('required'), Type.Literal('optional')]);

export const PrivacyCenterAction = Type.Object(
  {
    policy_key: Type.String({ minLength: 1, maxLength: 200 }),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.String({ maxLength: 2000 }),
    identity_inputs: Type.Object(
      { email: Type.Optional(InputRequirement), phone_number: Type.Optional(InputRequirement) },
      { ...Strict, minProperties: 1 },
    ),
    translations: Translations(
      'The title and description in other languages: {"de": {"title": "…", "description": "…"}}; missing ones read the text above.',
    ),
  },
  Strict,
);
export type PrivacyCenterAction = Type.Static<typeof PrivacyCenterAction>;

export const PrivacyCenterSettings = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200 }),
    organization_name: Type.String({ minLength: 1, maxLength: 200 }),
    actions: Type.Array(PrivacyCenterAction, { maxItems: 20 }),
    translations: Translations(
      'The title in other languages: {"de": {"title": "Datenschutzcenter"}}; a missing one reads `title`.',
    ),
  },
  Strict,
);
export type PrivacyCenterSettings = Type.Static<typeof PrivacyCenterSettings>;
