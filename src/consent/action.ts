// The consent action type (src/actions/registry.ts): a rule records the request's consent_preferences for
// each of its identities (service.ts). Its requests give those preferences; an opt-out needs no proof of
// identity (the public side decides that, src/privacy-center/). A request to opt out (CCPA).
import { defineAction } from '../actions/registry.ts';
import { type ConsentPreference, ConsentPreferences } from './schemas.ts';
import { CONSENT_ACTION_TYPE, consentPreferencesProblem, recordPreferences } from './service.ts';

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
    preferences_recorded: await services.db.transaction((tx) =>
      recordPreferences(tx, services.keyring, context.identities, preferences ?? [], {
        source: 'privacy_request',
        privacyRequestId: context.privacyRequestId,
      }),
    ),
  }),
  summary: { key: 'consent' },
});
