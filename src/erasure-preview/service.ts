// What approving an erasure request would touch, for the approver to read before approving (issue 37):
// per datastore, the entities the request's proven identities match and, per erasure rule, how many
// entities, attribute values and files its strategy would change; the manual systems that would get an
// erasure task; the policy's pre- and post-execution webhooks. Read-only: it opens the identities to
// match them, as the run will, and answers counts and names only, never a value.
import type { Database } from '../db/database.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { datastoreRepository } from '../datastore/admin-repository.ts';
import { matchedSubtrees } from '../datastore/identity-match.ts';
import type { SubjectEntity } from '../datastore/subject-store.ts';
import { conflict, notFound } from '../errors.ts';
import { manualSystemRepository } from '../manual-systems/repository.ts';
import { isMaskingStrategyName, strategyEffect } from '../masking/strategies.ts';
import { policyRepository, type RuleRow } from '../policies/repository.ts';
import { openIdentity, typedIdentities } from '../privacy-requests/identity.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';
import { parseTargets } from '../privacy-requests/rules/targets.ts';
import { webhookRepository } from '../webhooks/repository.ts';

const ERASURE = 'erasure';
const DEFAULT_STRATEGY = 'nullify';

export interface RulePreview {
  rule_key: string;
  strategy: string;
  effect: 'rewrite' | 'delete' | 'forget';
  entities: number;
  attributes: number;
  files: number;
}

export interface DatastorePreview {
  datastore: string;
  matched_entities: number;
  rules: RulePreview[];
}

export interface ErasurePreview {
  privacy_request_id: string;
  policy_key: string;
  erasure_rules: number;
  datastores: DatastorePreview[];
  manual_systems: { key: string; name: string }[];
  webhooks: { key: string; name: string; timing: string; connection_key: string }[];
}

/** What one rule would do to the entities matched in one datastore (each rule on the matched state). */
function previewRule(rule: RuleRow, matched: readonly SubjectEntity[]): RulePreview {
  const strategy = rule.masking_strategy?.strategy ?? DEFAULT_STRATEGY;
  const effect = isMaskingStrategyName(strategy) ? strategyEffect(strategy) : 'rewrite';
  const selection = parseTargets(rule.targets);
  const targeted = matched.filter((entity) => selection.concernsTable(entity.name));
  const selected = (entity: SubjectEntity) =>
    entity.attributes.filter(
      (attribute) =>
        selection.selectsAttribute(entity.name, attribute.name) &&
        (effect !== 'rewrite' || attribute.value !== null),
    ).length;
  const files = (entity: SubjectEntity) =>
    entity.files.filter((file) => selection.selectsAttribute(entity.name, file.name)).length;
  return {
    rule_key: rule.key,
    strategy,
    effect,
    entities: targeted.length,
    attributes: targeted.reduce((sum, entity) => sum + selected(entity), 0),
    files: targeted.reduce((sum, entity) => sum + files(entity), 0),
  };
}

export async function previewErasure(
  services: { db: Database; keyring: Keyring },
  privacyRequestId: string,
): Promise<ErasurePreview> {
  const { db, keyring } = services;
  const request = await privacyRequestRepository.find(db, privacyRequestId);
  if (!request) throw notFound(`No privacy request with id ${privacyRequestId}.`);
  if (!request.identity_sealed)
    throw conflict(
      'The identities of this request have expired and were purged: there is nothing left to match.',
    );
  const [policy] = await policyRepository.withRules(
    db,
    await policyRepository.byIds(db, [request.policy_id]),
  );
  if (!policy) throw notFound(`The policy of privacy request ${privacyRequestId} is missing.`);
  const rules = policy.rules.filter((rule) => rule.action_type === ERASURE);
  const identities = typedIdentities(openIdentity(keyring, request.id, request.identity_sealed));

  const datastores: DatastorePreview[] = [];
  if (rules.length > 0) {
    for (const { name } of await datastoreRepository.list(db)) {
      const matched = await matchedSubtrees(db, services, name, identities);
      datastores.push({
        datastore: name,
        matched_entities: matched.length,
        rules: rules.map((rule) => previewRule(rule, matched)),
      });
    }
  }
  const erases = rules.length > 0 || (policy.rules.length === 0 && policy.drp_action === ERASURE);
  const systems = erases ? await manualSystemRepository.systemsFor(db, [ERASURE]) : [];
  const webhooks = await webhookRepository.webhooksOfPolicy(db, policy.id);
  return {
    privacy_request_id: request.id,
    policy_key: policy.key,
    erasure_rules: rules.length,
    datastores,
    manual_systems: systems.map((system) => ({ key: system.key, name: system.name })),
    webhooks: webhooks.map((webhook) => ({
      key: webhook.key,
      name: webhook.name,
      timing: webhook.timing,
      connection_key: webhook.connection_key,
    })),
  };
}
