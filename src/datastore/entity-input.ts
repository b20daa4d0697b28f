// What an entity write takes, checked strictly before the store sees it: the entity-create schema (a JSON
// body's shape; the subject API and the importer normalise their inputs into it) and its names, values and
// bounds, with the one schema check that turns a failure into a 400 sentence naming the field (and showing
// the offending value, cut short, so a bad attribute name is named). No HTTP and no database here.
import AjvModule, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Type, { type TSchema } from 'typebox';
import { badRequest } from '../errors.ts';
import { isEmailAddress } from '../validation/email.ts';
import { sizeSentence } from '../validation/messages.ts';
import { NAME, shown } from './subject-items.ts';

export const EntityId = Type.String({ minLength: 1, maxLength: 200, description: 'entity id (a UUID)' });
export const Name = Type.String({ pattern: NAME, description: 'a table or attribute name' });
export const Value = Type.Union([Type.String({ maxLength: 65536 }), Type.Null()]);
export const MAX_ITEMS = 1000;

/** An answer's `error` sent back with its item: accepted and ignored, so answers can be resubmitted. */
export const EchoedError = Type.Optional(
  Type.Unknown({ description: 'ignored: an item of an answer may be sent back with its error' }),
);

export const EntityCreateInput = Type.Array(
  Type.Object(
    {
      id: Type.Optional(Type.String({ format: 'uuid', description: 'optional client-chosen id' })),
      name: Name,
      references: Type.Optional(
        Type.Array(
          Type.Object(
            { parentId: EntityId, parentName: Name, error: EchoedError },
            { additionalProperties: false },
          ),
          { maxItems: 100 },
        ),
      ),
      attributes: Type.Optional(
        Type.Array(Type.Object({ name: Name, value: Value }, { additionalProperties: false }), {
          maxItems: MAX_ITEMS,
        }),
      ),
      error: EchoedError,
    },
    { additionalProperties: false },
  ),
  { minItems: 1, maxItems: MAX_ITEMS },
);

const Ajv = AjvModule.default;
const addFormats = addFormatsModule.default;
const ajv = new Ajv({ coerceTypes: false, removeAdditional: false, allErrors: false, strict: false });
addFormats(ajv);
// ajv-formats' email pattern backtracks on long input; ours reads the value linearly after a length bound.
ajv.addFormat('email', isEmailAddress);

const validators = new WeakMap<TSchema, ValidateFunction>();

function describe(error: ErrorObject, where: string, data: unknown): string {
  const path = error.instancePath.split('/').slice(1);
  const params = error.params as { missingProperty?: string; additionalProperty?: string; limit?: number };
  const field = [where, ...path, params.missingProperty ?? params.additionalProperty]
    .filter(Boolean)
    .join('.');
  if (params.missingProperty) return `${field} is required.`;
  if (params.additionalProperty) return `${field} is not an accepted field.`;
  let value: unknown = data;
  for (const step of path) value = (value as Record<string, unknown> | undefined)?.[step];
  const got = typeof value === 'string' ? ` (got ${shown(value)})` : '';
  if (error.keyword === 'pattern' && path.at(-1) === 'name')
    return `${field} is not a valid name${got}: use letters, digits, _ and -.`;
  return `${field} ${sizeSentence(error.keyword, params.limit) ?? error.message ?? 'is invalid'}${got}.`;
}

export function validated<T>(schema: TSchema, where: string, data: unknown): T {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(data)) {
    const [first] = validate.errors ?? [];
    throw badRequest(first ? describe(first, where, data) : `The ${where} is invalid.`);
  }
  return data as T;
}
