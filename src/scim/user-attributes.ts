// A SCIM User's attributes (RFC 7643 section 4.1) as Lethe keeps them: read from a request's body or a
// PatchOp's path, and written back as a resource. Attributes Lethe does not keep are accepted and left alone.
import type { OperatorRow } from '../operators/repository.ts';
import { USERNAME_PATTERN } from '../operators/account.ts';
import { isEmailAddress } from '../validation/email.ts';
import { invalidValue, type Json, optionalText, ScimError, USER_SCHEMA } from './protocol.ts';

export interface UserChanges {
  email?: string | null;
  displayName?: string | null;
  externalId?: string | null;
  active?: boolean;
}

export function checkUserName(value: string): string {
  const username = value.trim().toLowerCase();
  if (!new RegExp(USERNAME_PATTERN).test(username)) {
    throw invalidValue(
      'userName must be 1 to 100 letters, digits, ".", "_", "@" or "-", starting with a letter or digit.',
    );
  }
  return username;
}

function booleanOf(value: unknown, name: string): boolean {
  // Entra ID sends "True"/"False" as strings in PATCH.
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`${name} must be true or false.`);
}

/** The primary (else the first) work address of `emails`. */
function emailOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw invalidValue('emails must be a list of {value, type, primary}.');
  const entries = value.filter((entry): entry is Json => typeof entry === 'object' && entry !== null);
  const chosen = entries.find((entry) => entry.primary === true) ?? entries[0];
  if (!chosen) return null;
  if (typeof chosen.value !== 'string' || !isEmailAddress(chosen.value) || chosen.value.length > 254) {
    throw invalidValue('emails[].value must be an email address.');
  }
  return chosen.value;
}

function displayNameOf(body: Json): string | null {
  if (typeof body.displayName === 'string' && body.displayName.trim())
    return body.displayName.trim().slice(0, 500);
  const name = body.name;
  if (typeof name === 'object' && name !== null) {
    const parts = name as Json;
    if (typeof parts.formatted === 'string' && parts.formatted.trim())
      return parts.formatted.trim().slice(0, 500);
    const joined = [parts.givenName, parts.familyName].filter((part) => typeof part === 'string').join(' ');
    if (joined.trim()) return joined.trim().slice(0, 500);
  }
  return null;
}

export function userFields(body: Json): UserChanges & { userName?: string } {
  if (body.userName !== undefined && typeof body.userName !== 'string')
    throw invalidValue('userName must be a string.');
  return {
    userName: body.userName as string | undefined,
    email: emailOf(body.emails),
    displayName: displayNameOf(body),
    externalId: optionalText(body.externalId, 'externalId'),
    active: body.active === undefined ? undefined : booleanOf(body.active, 'active'),
  };
}

/** Core User attributes (RFC 7643 section 4.1) that Lethe does not keep: accepted and left alone. */
const UNKEPT_ATTRIBUTES = new Set([
  'nickname',
  'profileurl',
  'title',
  'usertype',
  'preferredlanguage',
  'locale',
  'timezone',
  'phonenumbers',
  'ims',
  'photos',
  'addresses',
  'entitlements',
  'roles',
  'x509certificates',
  'password',
]);

export function applyUserPath(
  changes: UserChanges,
  row: OperatorRow,
  path: string,
  value: unknown,
  op: string,
) {
  const name = path.trim().toLowerCase();
  if (UNKEPT_ATTRIBUTES.has(name.split(/[.[]/)[0] ?? '')) return;
  if (name === 'active') changes.active = op === 'remove' ? false : booleanOf(value, 'active');
  else if (name === 'displayname' || name === 'name.formatted') {
    changes.displayName = op === 'remove' ? null : optionalText(value, path);
  } else if (name === 'name') changes.displayName = displayNameOf({ name: value });
  else if (name === 'externalid') changes.externalId = op === 'remove' ? null : optionalText(value, path);
  else if (name === 'emails') changes.email = op === 'remove' ? null : emailOf(value);
  else if (/^emails\[type eq "work"\]\.value$/i.test(path.trim())) {
    changes.email = op === 'remove' ? null : emailOf([{ value, primary: true }]);
  } else if (name === 'username') {
    if (typeof value !== 'string' || checkUserName(value) !== row.username) {
      throw new ScimError(400, 'userName cannot change here: create a new user instead.', 'mutability');
    }
  } else {
    throw new ScimError(400, `The attribute ${path.slice(0, 100)} cannot be changed here.`, 'invalidPath');
  }
}

export function userResource(row: OperatorRow, base: string): Json {
  return {
    schemas: [USER_SCHEMA],
    id: row.scim_id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.username,
    ...(row.display_name ? { displayName: row.display_name, name: { formatted: row.display_name } } : {}),
    ...(row.email ? { emails: [{ value: row.email, type: 'work', primary: true }] } : {}),
    active: row.active,
    groups: (row.scim_groups ?? []).map((display) => ({ display })),
    meta: {
      resourceType: 'User',
      created: row.created_at.toISOString(),
      lastModified: row.updated_at.toISOString(),
      location: `${base}/Users/${row.scim_id}`,
    },
  };
}
