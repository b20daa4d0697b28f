// The update action type (src/actions/registry.ts): a rule writes the request's corrections to the
// entities its identities match (service.ts). Its requests give the corrections, sealed on the request
// (sealing.ts) and sent to the callbacks beside it; a correction always waits for a person, who reviews its
// before and after. A request to correct (CCPA).
import { defineAction } from '../actions/registry.ts';
import { Corrections } from './schemas.ts';
import { type Correction, openCorrections, sealCorrections } from './sealing.ts';
import { applyCorrections, correctionsProblem, publishedCorrections, UPDATE_ACTION_TYPE } from './service.ts';

export const updateAction = defineAction<readonly Correction[], { values_written: number }>({
  name: UPDATE_ACTION_TYPE,
  description:
    "Writes the request's corrections to the entities its identities match, after an operator reviewed them; its targets (required, <table>.<attribute> or <table>.*, never *) publish what may be corrected.",
  rank: 20,
  category: 'correct',
  rule: { storageDestination: false, maskingStrategy: false, targets: true, namedTargets: true },
  input: {
    field: 'corrections',
    schema: Corrections,
    problem: (db, policyKey, rules, corrections) => correctionsProblem(db, policyKey, rules, corrections),
    store: (keyring, id, corrections) => ({ correctionsSealed: sealCorrections(keyring, id, corrections) }),
    open: (keyring, row) => openCorrections(keyring, row.id, row.corrections_sealed),
    inCallback: (corrections) => (corrections.length > 0 ? { corrections } : {}),
  },
  needsPerson: () => true,
  yieldsDownload: false,
  run: async (services, context, rules, corrections) => ({
    values_written: await applyCorrections(
      services,
      context.privacyRequestId,
      context.datastores,
      context.identities,
      publishedCorrections(rules, corrections ?? []),
    ),
  }),
  summary: { key: 'corrections' },
});
