// Shapes of corrections (GDPR art. 16): what a request asks to write, and the before/after an operator
// reviews before approving.
import Type from 'typebox';
import { PATTERN_HINT } from '../validation/messages.ts';

export const CORRECTION_TARGET_PATTERN = '^[A-Za-z_][\\w-]{0,127}\\.[A-Za-z_][\\w-]{0,127}$';

export const MAX_CORRECTION_ATTRIBUTE_LENGTH = 257;
export const MAX_CORRECTION_VALUE_LENGTH = 10_000;

export const Correction = Type.Object(
  {
    attribute: Type.String({
      maxLength: MAX_CORRECTION_ATTRIBUTE_LENGTH,
      pattern: CORRECTION_TARGET_PATTERN,
      example: 'users.name',
      [PATTERN_HINT]: 'be <table>.<attribute>',
    }),
    value: Type.String({ maxLength: MAX_CORRECTION_VALUE_LENGTH, description: 'the corrected value' }),
  },
  { additionalProperties: false },
);

/** One value a request asks to write (sealed on the request row by sealing.ts). */
export type Correction = Type.Static<typeof Correction>;

export const Corrections = Type.Array(Correction, {
  minItems: 1,
  maxItems: 50,
  description:
    'For a policy with an update rule: the values to write to the attributes of the entities the identity matches.',
});

export const CorrectionPreview = Type.Object({
  corrections: Type.Array(Correction),
  changes: Type.Array(
    Type.Object({
      datastore: Type.String(),
      entity_id: Type.String(),
      attribute: Type.String({ description: '<table>.<attribute>' }),
      before: Type.Union([Type.String(), Type.Null()]),
      after: Type.String(),
    }),
    { description: 'what the run would write now, per matched entity' },
  ),
});
export type CorrectionPreview = Type.Static<typeof CorrectionPreview>;
