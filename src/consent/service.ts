// Consent and opt-out (docs/decisions.md#more-ways-in): the preferences a request's consent rule records for
// each of its trusted identities (and, for its unproven ones, its opt-outs only), the opt-out a Global
// Privacy Control signal records, an identity's current
// preferences with their history, and the law's clock of an opt-out (15 business days, CCPA §7026(f)).
// Never logs nor stores an identity value: identities are filed under their consent index.
import type { TypedIdentity } from '../datastore/identity-attributes.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import type { TrustedMatch } from '../datastore/trusted-match.ts';
import { invalid } from '../errors.ts';
import { consentIndex } from './identity-index.ts';
import { consentRepository, type PreferenceRow } from './repository.ts';
import type { ConsentPreference, ConsentView, RecordedPreference } from './schemas.ts';

/** The rule action that records consent (Fides' name). */
export const CONSENT_ACTION_TYPE = 'consent';
/** What "Do not sell or share my personal information" and a GPC signal opt out of. */
export const SALE_AND_SHARING_USE = 'marketing.advertising';
export const DO_NOT_SELL_OR_SHARE: readonly ConsentPreference[] = [
  { data_use: SALE_AND_SHARING_USE, opt_in: false },
];
const HISTORY_LIMIT = 200;

/** A policy whose every rule records consent: its requests are opt-outs or consents, nothing else. */
export function isConsentOnly(rules: readonly { action_type: string }[]): boolean {
  return rules.length > 0 && rules.every((rule) => rule.action_type === CONSENT_ACTION_TYPE);
}

export function hasConsentRule(rules: readonly { action_type: string }[]): boolean {
  return rules.some((rule) => rule.action_type === CONSENT_ACTION_TYPE);
}

/**
 * Records `preferences` for every trusted identity, as the current ones and in the history. Only a proof
 * makes a TrustedMatch (src/privacy-requests/trusted-identity.ts): an opt-in, which lets data flow, is never
 * written on anyone's unproven word.
 */
export async function recordPreferences(
  tx: Queryable,
  keyring: Keyring,
  identities: readonly TrustedMatch[],
  preferences: readonly ConsentPreference[],
  origin: Origin,
): Promise<number> {
  return record(tx, keyring, identities, preferences, origin);
}

/**
 * Records the opt-outs among `preferences` for identities nobody proved (a public opt-out, a GPC signal):
 * an opt-out needs no proof (CCPA §7026(d)), it gives nobody data and erases nothing. Opt-ins are left out.
 */
export async function recordOptOuts(
  tx: Queryable,
  keyring: Keyring,
  identities: readonly TypedIdentity[],
  preferences: readonly ConsentPreference[],
  origin: Origin,
): Promise<number> {
  const optOuts = preferences.filter((preference) => !preference.opt_in);
  return record(tx, keyring, identities, optOuts, origin);
}

interface Origin {
  source: 'privacy_request' | 'gpc';
  privacyRequestId: string | null;
}

async function record(
  tx: Queryable,
  keyring: Keyring,
  identities: readonly TypedIdentity[],
  preferences: readonly ConsentPreference[],
  origin: Origin,
): Promise<number> {
  const records = identities
    .filter((identity) => identity.value.trim() !== '')
    .flatMap((identity) =>
      preferences.map((preference) => ({
        identityKind: identity.kind,
        identityIndex: consentIndex(keyring, identity.kind, identity.value),
        dataUse: preference.data_use,
        optIn: preference.opt_in,
        source: origin.source,
        privacyRequestId: origin.privacyRequestId,
      })),
    );
  await consentRepository.record(tx, records);
  return records.length;
}

const toRecorded = (row: PreferenceRow): RecordedPreference => ({
  data_use: row.data_use,
  opt_in: row.opt_in,
  source: row.source,
  privacy_request_id: row.privacy_request_id,
  recorded_at: row.recorded_at.toISOString(),
});

/** The current preferences of one identity (exactly one of email, phone_number) and their history. */
export async function readConsent(
  db: Queryable,
  keyring: Keyring,
  query: { email?: string; phone_number?: string },
): Promise<ConsentView> {
  const given = (['email', 'phone_number'] as const).filter((kind) => query[kind]?.trim());
  if (given.length !== 1) throw invalid('Give exactly one identity: email or phone_number.');
  const kind = given[0] as 'email' | 'phone_number';
  const index = consentIndex(keyring, kind, (query[kind] as string).trim());
  const [current, history] = await Promise.all([
    consentRepository.current(db, kind, index),
    consentRepository.history(db, kind, index, HISTORY_LIMIT),
  ]);
  return { identity_kind: kind, preferences: current.map(toRecorded), history: history.map(toRecorded) };
}

/**
 * Why `preferences` cannot go with a request of a policy with `rules`, or undefined: a consent rule needs
 * preferences to record, and preferences sent to a policy without one would silently do nothing.
 */
export function consentPreferencesProblem(
  policyKey: string,
  rules: readonly { action_type: string }[],
  preferences: readonly ConsentPreference[] | undefined,
): string | undefined {
  const given = preferences !== undefined && preferences.length > 0;
  if (hasConsentRule(rules) && !given)
    return `consent_preferences is required: policy ${policyKey} records consent.`;
  if (!hasConsentRule(rules) && given)
    return `consent_preferences applies only to a policy with a consent rule; ${policyKey} has none.`;
  return undefined;
}
