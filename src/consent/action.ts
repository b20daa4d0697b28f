// The consent action type (src/actions/registry.ts): a rule records the request's consent_preferences for
// each of its trusted identities, and its opt-outs (never an opt-in) for its unproven ones (service.ts): an
// opt-out needs no proof of identity, an opt-in does. A request to opt out (CCPA).
import { defineAction } from '../actions/registry.ts';
import { type ConsentPreference, ConsentPreferences } from './schemas.ts';
import {
  CONSENT_ACTION_TYPE,
  consentPreferencesProblem,
  recordOptOuts,
  recordPreferences,
} from './service.ts';

export const consentAction = defineAction<
  readonly ConsentPreference[],
  { identities: number; preferences_recorded: number }
>({
  name: CONSENT_ACTION_TYPE,
  description:
    "Records the request's consent_preferences for each of its identities; takes no targets, strategy nor destination.",
  rank: 10,
  category: 'opt_out',
  rule: { storageDestination: false, maskingStrategy: false, targets: false },
  input: {
    field: 'consent_preferences',
    schema: ConsentPreferences,
    problem: async (_db, policyKey, rules, preferences) =>
      consentPreferencesProblem(policyKey, rules, preferences),
    store: (_keyring, _id, preferences) => ({ consentPreferences: preferences }),
    open: (_keyring, row) => row.consent_preferences,
  },
  needsPerson: () => false,
  yieldsDownload: false,
  run: async (services, context, _rules, preferences) => ({
    identities: context.identities.length,
    preferences_recorded: await services.db.transaction(async (tx) => {
      const origin = { source: 'privacy_request' as const, privacyRequestId: context.privacyRequestId };
      // The unproven values first: where one is also trusted, the trusted write is the one that stays.
      const optOuts = await recordOptOuts(tx, services.keyring, context.unproven, preferences ?? [], origin);
      return (
        optOuts +
        (await recordPreferences(tx, services.keyring, context.identities, preferences ?? [], origin))
      );
    }),
  }),
  summary: { key: 'consent' },
});
