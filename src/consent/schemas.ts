// Shapes of consent: Fides' `consent_preferences` ([{data_use, opt_in}]) on a request, and the answer of
// GET /v1/consent (an identity's current preferences and their history). Bounded: these come from anyone.
import Type from 'typebox';
import { PATTERN_HINT } from '../validation/messages.ts';
import { MAX_EMAIL_LENGTH } from '../validation/email.ts';

/** A data use of Fides' taxonomy, such as `marketing.advertising` (dot-separated lower-case words). */
export const DATA_USE_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*){0,9}$';

export const ConsentPreference = Type.Object(
  {
    data_use: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: DATA_USE_PATTERN,
      example: 'marketing.advertising',
      [PATTERN_HINT]: 'be a data use such as marketing.advertising',
    }),
    opt_in: Type.Boolean({ description: 'true: consents to this use; false: opts out of it' }),
  },
  { additionalProperties: false },
);
export type ConsentPreference = Type.Static<typeof ConsentPreference>;

export const ConsentPreferences = Type.Array(ConsentPreference, {
  maxItems: 50,
  description: "Fides' consent_preferences: what the subject consents to or opts out of, per data use.",
});

export const ConsentQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_EMAIL_LENGTH })),
    phone_number: Type.Optional(Type.String({ minLength: 1, maxLength: 16 })),
  },
  { additionalProperties: false },
);
export type ConsentQuery = Type.Static<typeof ConsentQuery>;

const RecordedPreference = Type.Object({
  data_use: Type.String(),
  opt_in: Type.Boolean(),
  source: Type.Enum(['privacy_request', 'gpc'], {
    description: 'privacy_request: a consent rule ran; gpc: a Global Privacy Control signal (Sec-GPC: 1)',
  }),
  privacy_request_id: Type.Union([Type.String(), Type.Null()]),
  recorded_at: Type.String({ format: 'date-time' }),
});
export type RecordedPreference = Type.Static<typeof RecordedPreference>;

export const ConsentView = Type.Object({
  identity_kind: Type.String(),
  preferences: Type.Array(RecordedPreference, { description: 'the current preference per data use' }),
  history: Type.Array(RecordedPreference, { description: 'every preference recorded, oldest first' }),
});
export type ConsentView = Type.Static<typeof ConsentView>;
