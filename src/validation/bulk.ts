// Per-item validation for the bulk endpoints (PATCH /connection, /dsr/policy, /dsr/policy/{key}/rule, POST
// /privacy-request). The HTTP layer only checks that the body is an array of objects (BulkBody marks it);
// each item is checked here so that one bad item lands in `failed` while the others still apply. Messages name the field, never its value:
// a submitted value may be a secret.
import AjvModule, { type ErrorObject } from 'ajv';
import Type from 'typebox';
import { isEmailAddress } from './email.ts';
import { describeSchemaErrors, MESSAGE_AJV_OPTIONS, PATTERN_HINT } from './messages.ts';

const Ajv = AjvModule.default;
const ajv = new Ajv({
  coerceTypes: false,
  removeAdditional: false,
  allErrors: false,
  strict: false,
  ...MESSAGE_AJV_OPTIONS,
});
// The same linear email check as the HTTP validator's (src/http/validation.ts).
ajv.addFormat('email', isEmailAddress);

/** Keys name resources in paths and in references (`connection_config_key`, policy keys, rule keys). */
export const KEY_PATTERN = '^[A-Za-z0-9_][A-Za-z0-9_.-]*$';
export const ResourceKey = Type.String({
  pattern: KEY_PATTERN,
  minLength: 1,
  maxLength: 100,
  [PATTERN_HINT]: 'hold only letters, digits, _, . and -, and start with a letter, a digit or _',
});

/** Largest array a bulk endpoint or a webhook list PUT accepts. */
export const MAX_BULK_ITEMS = 50;

export interface BulkFailure {
  message: string;
  data: Record<string, unknown>;
}

export interface BulkResult<T> {
  succeeded: T[];
  failed: BulkFailure[];
}

export type ItemCheck<T> = { ok: true; value: T } | { ok: false; message: string };

function describe(errors: readonly ErrorObject[], prefix: string): string {
  return describeSchemaErrors(
    errors,
    (failed, property) => [prefix, ...failed.instancePath.split('/'), property].filter(Boolean).join('.'),
    `${prefix || 'the item'} is invalid.`,
  );
}

/** The dotted path of the first string (or key) holding U+0000, which PostgreSQL text cannot store. */
function pathOfNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const innerPath = [path, key].filter(Boolean).join('.');
    if (key.includes('\u0000')) return innerPath;
    const found = pathOfNul(inner, innerPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Compiles a strict checker for one bulk item (no coercion; unknown fields are errors).
 * @param prefix names the checked value inside its item in messages, such as "masking_strategy.configuration".
 */
export function itemValidator<S extends Type.TSchema>(
  schema: S,
  prefix = '',
): (item: unknown) => ItemCheck<Type.Static<S>> {
  const validate = ajv.compile(schema as object);
  return (item) => {
    if (validate(item)) {
      const nul = pathOfNul(item, prefix);
      if (nul !== undefined)
        return { ok: false, message: `${nul || 'the item'} holds a NUL character, which cannot be stored.` };
      return { ok: true, value: item as Type.Static<S> };
    }
    return { ok: false, message: describe(validate.errors ?? [], prefix) };
  };
}

/**
 * What a failed item echoes back: only the listed, non-secret fields the caller sent, so an unknown or
 * misplaced field (which may hold a secret) is never repeated in an answer.
 */
export function echoFields(item: unknown, fields: readonly string[]): Record<string, unknown> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return {};
  const source = item as Record<string, unknown>;
  return Object.fromEntries(fields.filter((field) => field in source).map((field) => [field, source[field]]));
}

/**
 * Schema annotation of a bulk body: the HTTP validator checks only that the body is an array of at most
 * `maxItems` objects, and each item is checked later on its own (one that fails lands in `failed`, the
 * others still apply). The item schema stays in the body's `items` for the OpenAPI description.
 */
export const PER_ITEM_VALIDATION = 'x-per-item-validation';

/** What the HTTP layer checks of a bulk body: an array of up to `maxItems` objects. */
export function bulkEnvelope(maxItems: number) {
  return Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems });
}

/** A bulk body: up to MAX_BULK_ITEMS items of `item`'s shape, each checked on its own. */
export function BulkBody<T extends Type.TObject>(item: T) {
  return Type.Array(item, {
    maxItems: MAX_BULK_ITEMS,
    description:
      'Each item is checked on its own; one that fails is listed in `failed` with the reason, and the others still apply.',
    [PER_ITEM_VALIDATION]: true,
  });
}

export const BulkFailureSchema = Type.Object({
  message: Type.String(),
  data: Type.Object({}, { additionalProperties: true }),
});

export function BulkResponse<T extends Type.TSchema>(item: T) {
  return Type.Object({ succeeded: Type.Array(item), failed: Type.Array(BulkFailureSchema) });
}

export function Nullable<T extends Type.TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
