// Shape of a disclosure (GDPR art. 15(1)): what the subject's access report says of a datastore or of a
// connection whose receiver holds data. Plain sentences written by the organisation, bounded.
import Type from 'typebox';

const Sentence = Type.String({ maxLength: 1000 });
const List = (description: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 30, description });

export const Disclosure = Type.Object(
  {
    purposes: List('why the data is processed, one purpose an item'),
    recipients: List('who receives it (organisations or categories)'),
    retention: Type.String({ maxLength: 1000, description: 'how long it is kept, or how that is decided' }),
    source: Type.Optional(
      Type.String({ maxLength: 1000, description: 'where the data comes from when not from the subject' }),
    ),
    automated_decisions: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'any automated decision-making or profiling, its logic and consequences; empty: none',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Disclosure = Type.Static<typeof Disclosure>;

export const DisclosureView = Type.Object({
  purposes: Type.Array(Type.String()),
  recipients: Type.Array(Type.String()),
  retention: Type.String(),
  source: Sentence,
  automated_decisions: Sentence,
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type DisclosureView = Type.Static<typeof DisclosureView>;
