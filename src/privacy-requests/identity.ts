// A data subject's identities: their shape (email, E.164 phone number, custom `{label, value}` entries),
// how a derived identity merges into the known set, and their sealing at rest under the identity-cache
// key bound to the request id. A request holds two sets: `identity` (trusted: a TrustedIdentity, which
// only a proof makes, trusted-identity.ts: given with a management token, proved by the mailed code or the
// subject's confirm-agent link, named by an accepted power of attorney, or derived by a two_way webhook),
// the only one matched against datastores and sent as callbacks' `identity`; and `unverified_identity`
// (given on the public side and not proved), shown to operators and sent as callbacks'
// `unverified_identity`, never matched. Each is sealed under its own associated data, so one can never be
// opened as the other. It must never log an identity nor put one in an error message.
import type { Keyring } from '../crypto/keyring.ts';
import { CUSTOM_KEY_PATTERN, type TypedIdentity } from '../datastore/identity-attributes.ts';
import { openText, seal } from '../crypto/secret-box.ts';
import { isEmailAddress } from '../validation/email.ts';
import type { ProofMark } from '../datastore/trusted-match.ts';

export interface CustomIdentity {
  label: string;
  value: string;
}

/** Known identities: `email`, `phone_number` and any number of custom entries keyed by a name. */
export type Identity = { email?: string; phone_number?: string } & Record<
  string,
  string | CustomIdentity | undefined
>;

/**
 * Identities a proof established: the only ones a run, a consent write or a correction matches. Only
 * trusted-identity.ts's proving functions make one (and this module, opening a set it sealed as one).
 */
export type TrustedIdentity = Identity & ProofMark;

export interface DerivedIdentity {
  email?: string;
  phone_number?: string;
  custom_identity?: CustomIdentity;
}

export const E164_PATTERN = '^\\+[1-9][0-9]{1,14}$';

const e164 = new RegExp(E164_PATTERN);

/** Why an identity is not acceptable (naming the field, never the value), or undefined when it is. */
export function identityProblem(identity: Record<string, unknown>, field = 'identity'): string | undefined {
  const keys = Object.keys(identity);
  if (keys.length === 0) return `${field} must name at least one identity.`;
  for (const key of keys) {
    const value = identity[key];
    if (key === 'email') {
      if (typeof value !== 'string' || !isEmailAddress(value))
        return `${field}.email must be an email address.`;
    } else if (key === 'phone_number') {
      if (typeof value !== 'string' || !e164.test(value))
        return `${field}.phone_number must be an E.164 phone number such as +14155550123.`;
    } else {
      if (!new RegExp(CUSTOM_KEY_PATTERN).test(key))
        return `${field}.${key.slice(0, 64)} is not an accepted identity name (letters, digits, underscore).`;
      if (!isCustomIdentity(value)) return `${field}.${key} must be an object {label, value} of two strings.`;
    }
  }
  return undefined;
}

function isCustomIdentity(value: unknown): value is CustomIdentity {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  return (
    Object.keys(entry).length === 2 &&
    typeof entry.label === 'string' &&
    entry.label.length > 0 &&
    entry.label.length <= 200 &&
    typeof entry.value === 'string' &&
    entry.value.length > 0 &&
    entry.value.length <= 1000
  );
}

/** Why a `derived_identity` object is not acceptable, or undefined. */
export function derivedIdentityProblem(derived: unknown, field = 'derived_identity'): string | undefined {
  if (typeof derived !== 'object' || derived === null || Array.isArray(derived))
    return `${field} must be an object.`;
  for (const [key, value] of Object.entries(derived)) {
    if (key === 'email') {
      if (typeof value !== 'string' || !isEmailAddress(value))
        return `${field}.email must be an email address.`;
    } else if (key === 'phone_number') {
      if (typeof value !== 'string' || !e164.test(value))
        return `${field}.phone_number must be an E.164 phone number.`;
    } else if (key === 'custom_identity') {
      if (!isCustomIdentity(value)) return `${field}.custom_identity must be an object {label, value}.`;
    } else {
      return `${field}.${key.slice(0, 64)} is not an accepted field.`;
    }
  }
  return undefined;
}

/** The key a derived custom identity is stored under: the existing entry with its label, or its slug. */
function customKeyFor(known: Identity, label: string): string {
  for (const [key, value] of Object.entries(known)) {
    if (typeof value === 'object' && value?.label === label) return key;
  }
  const slug = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    // Runs were collapsed to one underscore above, so one at each end is all there is to trim.
    .replace(/^_|_$/g, '')
    .slice(0, 60);
  const base = /^[a-z_]/.test(slug) ? slug : `custom_${slug}`;
  return base === 'email' || base === 'phone_number' || base === '' ? `custom_${base}` : base;
}

/**
 * Splits what a request was given into the values a proof covers (`proved`: identity keys) and the rest,
 * which stays unverified.
 */
export function splitProved(
  given: Identity,
  proved: readonly string[],
): { trusted: Identity; unproven: Identity } {
  const trusted: Identity = {};
  const unproven: Identity = {};
  for (const [key, value] of Object.entries(given)) {
    if (proved.includes(key)) trusted[key] = value;
    else unproven[key] = value;
  }
  return { trusted, unproven };
}

/** Merge by type: each identity the derived set names replaces the known one; the others stay. */
export function mergeIdentity(known: Identity, derived: DerivedIdentity): Identity {
  const merged: Identity = { ...known };
  if (derived.email !== undefined) merged.email = derived.email;
  if (derived.phone_number !== undefined) merged.phone_number = derived.phone_number;
  if (derived.custom_identity) {
    merged[customKeyFor(known, derived.custom_identity.label)] = { ...derived.custom_identity };
  }
  return merged;
}

/**
 * The identities the datastore run matches entities with, each with its kind: `email`, `phone_number`, or
 * a custom identity's key (not its label: the key is the identifier a datastore's declaration names).
 */
export function typedIdentities(identity: Identity): TypedIdentity[] {
  return Object.entries(identity).flatMap(([kind, value]) => {
    const text = typeof value === 'string' ? value : value?.value;
    return typeof text === 'string' ? [{ kind, value: text }] : [];
  });
}

const aad = (privacyRequestId: string) => `privacy-request:${privacyRequestId}:identity`;
const unverifiedAad = (privacyRequestId: string) => `privacy-request:${privacyRequestId}:unverified-identity`;

/** Seals the request's trusted set: only a proof makes its argument (trusted-identity.ts). */
export function sealIdentity(keyring: Keyring, privacyRequestId: string, identity: TrustedIdentity): Buffer {
  return seal(keyring.secretKey('identity-cache'), JSON.stringify(identity), aad(privacyRequestId));
}

/** The request's trusted set as it was sealed: what was proved once stays proved. */
export function openIdentity(
  keyring: Keyring,
  privacyRequestId: string,
  sealed: Uint8Array,
): TrustedIdentity {
  return JSON.parse(
    openText(keyring.secretKey('identity-cache'), sealed, aad(privacyRequestId)),
  ) as TrustedIdentity;
}

/** Seals the values given on the public side that nobody has proved (see the module header). */
export function sealUnverifiedIdentity(
  keyring: Keyring,
  privacyRequestId: string,
  identity: Identity,
): Buffer {
  return seal(keyring.secretKey('identity-cache'), JSON.stringify(identity), unverifiedAad(privacyRequestId));
}

export function openUnverifiedIdentity(
  keyring: Keyring,
  privacyRequestId: string,
  sealed: Uint8Array | null,
): Identity {
  if (!sealed) return {};
  return JSON.parse(
    openText(keyring.secretKey('identity-cache'), sealed, unverifiedAad(privacyRequestId)),
  ) as Identity;
}

/**
 * The address messages to the subject go to: the trusted email, else the one given on the public side
 * (where the code went). Completion messages, which may carry a download link, use the trusted one only.
 */
export function contactEmail(
  keyring: Keyring,
  row: { id: string; identity_sealed: Uint8Array | null; unverified_identity_sealed?: Uint8Array | null },
): string | undefined {
  const trusted = row.identity_sealed ? openIdentity(keyring, row.id, row.identity_sealed).email : undefined;
  return trusted ?? openUnverifiedIdentity(keyring, row.id, row.unverified_identity_sealed ?? null).email;
}
