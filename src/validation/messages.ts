// Sentences for JSON-schema validation failures, shared by the HTTP validator (src/http/validation.ts) and
// the bulk item checks (src/validation/bulk.ts). They name the field and what it accepts, never the value
// sent (it may be a secret): an enum lists its allowed values, a pattern says in words what it accepts
// (the schema's `x-pattern-hint`, never the regular expression), a union of literals lists them all.
import type { ErrorObject } from 'ajv';

/** Schema annotation: what a `pattern` accepts, as the rest of a sentence after "must". */
export const PATTERN_HINT = 'x-pattern-hint';

/** Options every ajv instance that feeds these messages needs (parentSchema on each error). */
export const MESSAGE_AJV_OPTIONS = { verbose: true } as const;

function listed(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');
}

/** The values a schema that is only a literal (const) or an enum admits; undefined for any other schema. */
function literalsOf(schema: unknown): unknown[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const { const: single, enum: several } = schema as { const?: unknown; enum?: unknown };
  if (Array.isArray(several)) return several;
  if (single !== undefined) return [single];
  return undefined;
}

/**
 * The allowed values behind the first failure: an enum's or a const's, or, when the value failed a union
 * (anyOf) whose every branch is a literal or an enum, all of the branches' (ajv reports the first branch
 * first, and the union's own error last, at the same place).
 */
function allowedValues(errors: readonly ErrorObject[], first: ErrorObject): unknown[] | undefined {
  const union = errors.find(
    (error) =>
      (error.keyword === 'anyOf' || error.keyword === 'oneOf') && error.instancePath === first.instancePath,
  );
  if (union && Array.isArray(union.schema)) {
    const branches = union.schema.map(literalsOf);
    if (branches.every((values) => values !== undefined)) return [...new Set(branches.flat())];
    return undefined;
  }
  const params = first.params as { allowedValues?: unknown[]; allowedValue?: unknown };
  if (first.keyword === 'enum') return params.allowedValues;
  if (first.keyword === 'const') return [params.allowedValue];
  return undefined;
}

const COUNTED = {
  minLength: ['at least', 'characters'],
  maxLength: ['at most', 'characters'],
  minItems: ['at least', 'items'],
  maxItems: ['at most', 'items'],
  minProperties: ['at least', 'fields'],
  maxProperties: ['at most', 'fields'],
} as const;

/** A size bound in words ("must have at most 50 items", "must not be empty"), not ajv's "must NOT have more than". */
export function sizeSentence(keyword: string, limit: number | undefined): string | undefined {
  if (!(keyword in COUNTED) || limit === undefined) return undefined;
  const [bound, unit] = COUNTED[keyword as keyof typeof COUNTED];
  if (bound === 'at least' && limit === 1) return 'must not be empty';
  return `must have ${bound} ${limit.toLocaleString('en-US')} ${limit === 1 ? unit.slice(0, -1) : unit}`;
}

/**
 * One sentence for the first failure of `errors`. `field(name)` turns the failing error's place (its
 * instance path plus, for a missing or extra property, its name) into the dotted name the caller sees.
 */
export function describeSchemaErrors(
  errors: readonly ErrorObject[],
  field: (error: ErrorObject, property?: string) => string,
  fallback: string,
): string {
  const first = errors[0];
  if (!first) return fallback;
  const params = first.params as { missingProperty?: string; additionalProperty?: string; limit?: number };
  if (params.missingProperty) return `${field(first, params.missingProperty)} is required.`;
  if (params.additionalProperty)
    return `${field(first, params.additionalProperty)} is not an accepted field.`;
  const name = field(first) || 'the value';
  const values = allowedValues(errors, first);
  if (values) return `${name} must be one of: ${listed(values)}.`;
  if (first.keyword === 'pattern') {
    const hint = (first.parentSchema as Record<string, unknown> | undefined)?.[PATTERN_HINT];
    return typeof hint === 'string' ? `${name} must ${hint}.` : `${name} is not in a form it accepts.`;
  }
  const size = sizeSentence(first.keyword, params.limit);
  if (size) return `${name} ${size}.`;
  return `${name} ${first.message ?? 'is invalid'}.`;
}
