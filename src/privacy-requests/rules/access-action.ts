// The access action type (src/actions/registry.ts): a rule collects what the request's identities match in
// every datastore, filtered by its targets, into the sealed access package at its storage destination
// (access-run.ts); the subject of the completed request gets a download link. A request to know (CCPA).
import { defineAction } from '../../actions/registry.ts';
import { runAccessRules } from './access-run.ts';

export const accessAction = defineAction({
  name: 'access',
  description:
    "Collects what the request's identities match in every datastore, filtered by the rule's targets, into the access package at its storage destination; the subject gets a download link.",
  rank: 30,
  category: 'know',
  rule: { storageDestination: true, maskingStrategy: false, targets: true },
  needsPerson: () => false,
  yieldsDownload: true,
  run: (services, context, rules) => runAccessRules(services, context, rules),
  summary: { key: 'access', none: [] },
});
