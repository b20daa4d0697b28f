// The erasure action type (src/actions/registry.ts): every erasure rule masks, deletes or forgets what the
// request's identities match, by its masking strategy and targets, each datastore in one transaction
// (erasure.ts). It outranks every other action: a receiver must not miss that data goes away. A public
// erasure waits for a person unless LETHE_PUBLIC_ERASURE_AUTO_APPROVE. A request to delete (CCPA).
import { defineAction } from '../../actions/registry.ts';
import { eraseDatastore } from './erasure.ts';
import type { ErasureSummary } from './summary.ts';

export const erasureAction = defineAction({
  name: 'erasure',
  description:
    "Masks, deletes or forgets what the request's identities match, by the rule's masking strategy and targets; a request from the public waits for an operator.",
  rank: 40,
  category: 'delete',
  rule: { storageDestination: false, maskingStrategy: true, targets: true },
  needsPerson: (request, config) => request.client_id === null && !config.publicErasureAutoApprove,
  yieldsDownload: false,
  run: async (services, context, rules) => {
    const erasure: ErasureSummary[] = [];
    for (const datastore of context.datastores) {
      erasure.push(...(await eraseDatastore(services, context, rules, datastore)));
    }
    return erasure;
  },
  summary: { key: 'erasure', none: [] },
});
