// Which attributes of a datastore hold which identity kind (docs/decisions.md#whom-lethe-acts-for): the
// shape and limits of a declaration, the default when a datastore declares nothing, and the list of
// (kind, table, attribute) a privacy request's match may go through. A request's email matches only an
// email attribute, never one that merely holds the same text (a `notes` or `referrer_email`).
// No database and no HTTP here; it never sees an identity value.
import { invalid } from '../errors.ts';

/** `{kind: ["table.attribute", ...]}`: kinds are `email`, `phone_number` or a custom identity's key. */
export type IdentityDeclaration = Record<string, string[]>;

/** An identity value of a privacy request, with its kind (`email`, `phone_number` or a custom key). */
export interface TypedIdentity {
  kind: string;
  value: string;
}

/** One attribute an identity of `kind` may match through; `table` '' is any table (the default only). */
export interface IdentityAttribute {
  kind: string;
  table: string;
  attribute: string;
}

export const MAX_IDENTITY_KINDS = 20;
export const MAX_ATTRIBUTES_PER_KIND = 50;

const QUALIFIED_NAME = /^([A-Za-z_][A-Za-z0-9_-]{0,127})\.([A-Za-z_][A-Za-z0-9_-]{0,127})$/;
/** The key of a custom identity (`identity.<key>` of a request), which names its kind here too. */
export const CUSTOM_KEY_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,62}$';
const KIND = new RegExp(CUSTOM_KEY_PATTERN);

/** With nothing declared: `email` is email, `phone_number` and `phone` are phone numbers, in any table. */
export const DEFAULT_IDENTITY_ATTRIBUTES: readonly IdentityAttribute[] = [
  { kind: 'email', table: '', attribute: 'email' },
  { kind: 'phone_number', table: '', attribute: 'phone_number' },
  { kind: 'phone_number', table: '', attribute: 'phone' },
];

/** The default shown by GET: the attributes named so, in any table (`*`). */
export const DEFAULT_DECLARATION: IdentityDeclaration = {
  email: ['*.email'],
  phone_number: ['*.phone_number', '*.phone'],
};

const shown = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);

/**
 * The declaration in `body`, without repeats, or a 422 naming the first bad entry (`email[1]`). Kind
 * names and attribute names are identifiers, never personal values, so the message may show them.
 */
export function parseIdentityDeclaration(body: unknown): IdentityDeclaration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The body must be an object {kind: ["table.attribute", ...]}.');
  }
  const entries = Object.entries(body);
  if (entries.length > MAX_IDENTITY_KINDS) {
    throw invalid(`At most ${MAX_IDENTITY_KINDS} identity kinds may be declared.`);
  }
  const declaration: IdentityDeclaration = {};
  for (const [kind, names] of entries) {
    if (!KIND.test(kind)) {
      throw invalid(
        `${shown(kind)} is not an identity kind: email, phone_number or a custom identity key (letters, digits, underscore, at most 63, not starting with a digit).`,
      );
    }
    if (!Array.isArray(names)) throw invalid(`${kind} must be a list of "table.attribute" names.`);
    if (names.length > MAX_ATTRIBUTES_PER_KIND) {
      throw invalid(`${kind} names more than ${MAX_ATTRIBUTES_PER_KIND} attributes.`);
    }
    const seen = new Set<string>();
    names.forEach((name: unknown, index) => {
      if (typeof name !== 'string' || !QUALIFIED_NAME.test(name)) {
        throw invalid(
          `${kind}[${index}] must be a name of the form <table>.<attribute> (letters, digits, _ and -, at most 128 each).`,
        );
      }
      if (seen.has(name)) throw invalid(`${kind}[${index}] repeats ${name}.`);
      seen.add(name);
    });
    declaration[kind] = [...seen];
  }
  return declaration;
}

/** The attributes a request's identities may match through: the declaration's, else the default. */
export function identityAttributesOf(declaration: IdentityDeclaration | undefined): IdentityAttribute[] {
  if (!declaration) return [...DEFAULT_IDENTITY_ATTRIBUTES];
  return Object.entries(declaration).flatMap(([kind, names]) =>
    names.map((name) => {
      const dot = name.indexOf('.');
      return { kind, table: name.slice(0, dot), attribute: name.slice(dot + 1) };
    }),
  );
}
