// Runs a DSR policy's rules for one privacy request over every datastore: access rules first (the
// matching entity trees, filtered by each rule's targets, sealed into the access package at the rule's
// storage destination), then erasure rules (each datastore in one transaction, every rule's change
// recorded in the audit log with the privacy request id as actor). Safe to run twice for one request:
// the package is rewritten, and a datastore whose erasure already committed is not erased again.
// It never returns, logs or audits a personal value: the summary holds keys and counts only.
import { recordAudit } from '../../audit/audit-log.ts';
import { CONSENT_ACTION_TYPE, recordPreferences } from '../../consent/service.ts';
import { applyCorrections, UPDATE_ACTION_TYPE } from '../../corrections/service.ts';
import { matchedSubtrees } from '../../datastore/identity-match.ts';
import type { SubjectEntity } from '../../datastore/subject-store.ts';
import { policyRepository, type RuleRow } from '../../policies/repository.ts';
import {
  type AccessPackage,
  isStorableRequestId,
  loadAccessPackage,
  selectForPackage,
  storeAccessPackage,
} from './access-package.ts';
import { parseTargets, unionOfTargets } from './targets.ts';
import { eraseDatastore } from './erasure.ts';
import {
  ACCESS_ACTION,
  lockRequestDatastore,
  readRunCatalog,
  recordedErasures,
  type StorageDestination,
} from './run-repository.ts';
import type { AccessPackageSummary, ErasureSummary, RuleRunSummary } from './summary.ts';
import type { RuleRunInput, RuleServices, RunContext } from './context.ts';

/** Why a rule run could not start; the executor records it as the request's error, never as HTTP. */
export class RuleRunError extends Error {
  override name = 'RuleRunError';
  readonly code: 'unstorable_request_id' | 'unknown_policy';

  constructor(code: RuleRunError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

const countAttributes = (entities: readonly { attributes: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.attributes.length, 0);
const countFiles = (entities: readonly { files: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.files.length, 0);

export async function runPolicyRules(services: RuleServices, input: RuleRunInput): Promise<RuleRunSummary> {
  assertStorable(input.privacyRequestId);
  const policy = await policyRepository.findByKey(services.db, input.policyKey);
  if (!policy) throw new RuleRunError('unknown_policy', `No policy with key ${input.policyKey}.`);
  return runRulesOf(services, input, await policyRepository.rulesOf(services.db, [policy.id]));
}

/** `runPolicyRules` with the policy's rules already read (the executor reads them once per run). */
export async function runRulesOf(
  services: RuleServices,
  input: RuleRunInput,
  rules: readonly RuleRow[],
): Promise<RuleRunSummary> {
  assertStorable(input.privacyRequestId);
  const identities = input.identities.filter((identity) => identity.value.trim() !== '');
  const { datastores, destinations } = await readRunCatalog(services.db);

  const accessRules = rules.filter((rule) => rule.action_type === 'access');
  const erasureRules = rules.filter((rule) => rule.action_type === 'erasure');
  const consent = rules.some((rule) => rule.action_type === CONSENT_ACTION_TYPE)
    ? {
        identities: identities.length,
        preferences_recorded: await services.db.transaction((tx) =>
          recordPreferences(tx, services.keyring, identities, input.consentPreferences ?? [], {
            source: 'privacy_request',
            privacyRequestId: input.privacyRequestId,
          }),
        ),
      }
    : undefined;
  const corrections = rules.some((rule) => rule.action_type === UPDATE_ACTION_TYPE)
    ? {
        values_written: await applyCorrections(
          services,
          input.privacyRequestId,
          datastores,
          identities,
          input.corrections ?? [],
        ),
      }
    : undefined;
  const context = { ...input, identities, datastores };
  const access =
    accessRules.length > 0 ? await runAccessRules(services, context, accessRules, destinations) : [];
  const erasure: ErasureSummary[] = [];
  if (erasureRules.length > 0) {
    for (const datastore of datastores) {
      erasure.push(...(await eraseDatastore(services, context, erasureRules, datastore)));
    }
  }
  return {
    privacy_request_id: input.privacyRequestId,
    policy_key: input.policyKey,
    datastores,
    access,
    erasure,
    ...(consent ? { consent } : {}),
    ...(corrections ? { corrections } : {}),
  };
}

function assertStorable(privacyRequestId: string): void {
  if (!isStorableRequestId(privacyRequestId)) {
    throw new RuleRunError(
      'unstorable_request_id',
      'A privacy request id may only hold letters, digits, "_" and "-".',
    );
  }
}

function summariseStoredPackage(
  destination: StorageDestination,
  accessPackage: AccessPackage,
  bytes: number,
  reused: boolean,
): AccessPackageSummary {
  return {
    storage_destination_key: destination.key,
    rule_keys: accessPackage.rules.map((rule) => rule.key),
    bytes,
    reused,
    datastores: accessPackage.datastores.map((datastore) => ({
      datastore: datastore.name,
      matched_entities: datastore.matched_entities,
      entities: datastore.entities.length,
      attributes: countAttributes(datastore.entities),
      files: countFiles(datastore.entities),
    })),
  };
}

async function runAccessRules(
  services: RuleServices,
  context: RunContext,
  accessRules: readonly RuleRow[],
  storageDestinations: readonly StorageDestination[],
): Promise<AccessPackageSummary[]> {
  const destinations = new Map(storageDestinations.map((destination) => [destination.id, destination]));
  const byDestination = new Map<StorageDestination, RuleRow[]>();
  for (const rule of accessRules) {
    const destination = rule.storage_destination_id
      ? destinations.get(rule.storage_destination_id)
      : undefined;
    if (!destination) throw new Error(`The access rule ${rule.key} has no storage destination.`);
    byDestination.set(destination, [...(byDestination.get(destination) ?? []), rule]);
  }

  // Once an erasure of this request has committed, the data no longer matches as it did: the package an
  // earlier run stored before it began erasing is the complete one, so a rerun keeps it. collectTrees
  // looks for that erasure under each datastore's run lock and answers null when it finds one.
  let trees = await collectTrees(services, context, { stopWhenErased: true });
  const summaries: AccessPackageSummary[] = [];
  const toBuild: [StorageDestination, RuleRow[]][] = [];
  for (const [destination, rules] of byDestination) {
    const earlier = trees
      ? null
      : await loadAccessPackage(
          services.config,
          services.keyring,
          destination.location,
          context.privacyRequestId,
        );
    if (earlier)
      summaries.push(summariseStoredPackage(destination, earlier.accessPackage, earlier.bytes, true));
    else toBuild.push([destination, rules]);
  }
  if (toBuild.length === 0) return summaries;
  // A destination without an earlier package (deleted by hand, or a rule added since) gets the data as it is.
  trees ??= (await collectTrees(services, context, { stopWhenErased: false })) ?? new Map();

  const generatedAt = new Date().toISOString();
  const collected = new Map<string, { ids: Set<string>; rules: Set<string>; destinations: Set<string> }>();
  for (const [destination, rules] of toBuild) {
    const accessPackage = buildAccessPackage(context, destination, rules, trees, generatedAt);
    const bytes = await storeAccessPackage(
      services.config,
      services.keyring,
      destination.location,
      accessPackage,
    );
    summaries.push(summariseStoredPackage(destination, accessPackage, bytes, false));
    for (const datastore of accessPackage.datastores) {
      const entry = collected.get(datastore.name) ?? {
        ids: new Set(),
        rules: new Set(),
        destinations: new Set(),
      };
      for (const entity of datastore.entities) entry.ids.add(entity.id);
      for (const rule of rules) entry.rules.add(rule.key);
      entry.destinations.add(destination.key);
      collected.set(datastore.name, entry);
    }
  }
  for (const [datastore, entry] of collected) {
    await recordAudit(services.db, {
      action: ACCESS_ACTION,
      datastore,
      entityIds: [...entry.ids],
      actor: context.privacyRequestId,
      requestId: context.privacyRequestId,
      details: {
        policy_key: context.policyKey,
        rule_keys: [...entry.rules],
        storage_destination_keys: [...entry.destinations],
        matched_entities: trees.get(datastore)?.length ?? 0,
        entities: entry.ids.size,
      },
    });
  }
  return summaries;
}

/** The package of one destination: what the union of its rules' targets selects in every matched tree. */
function buildAccessPackage(
  context: RunContext,
  destination: StorageDestination,
  rules: RuleRow[],
  trees: Map<string, SubjectEntity[]>,
  generatedAt: string,
): AccessPackage {
  const selection = unionOfTargets(rules.map((rule) => parseTargets(rule.targets)));
  return {
    privacy_request_id: context.privacyRequestId,
    policy_key: context.policyKey,
    generated_at: generatedAt,
    rules: rules.map((rule) => ({
      key: rule.key,
      targets: rule.targets,
      storage_destination_key: destination.key,
    })),
    datastores: context.datastores.map((datastore) => {
      const tree = trees.get(datastore) ?? [];
      return { name: datastore, matched_entities: tree.length, entities: selectForPackage(tree, selection) };
    }),
  };
}

/**
 * The matched trees of every datastore, each read under the datastore's run lock. With stopWhenErased,
 * answers null as soon as one datastore shows a committed erasure of this request (another run got
 * there first, after storing its package), so that no package is built from partly erased data.
 */
async function collectTrees(
  services: RuleServices,
  context: RunContext,
  options: { stopWhenErased: boolean },
): Promise<Map<string, SubjectEntity[]> | null> {
  const trees = new Map<string, SubjectEntity[]>();
  for (const datastore of context.datastores) {
    const tree = await services.db.transaction(async (tx) => {
      await lockRequestDatastore(tx, context.privacyRequestId, datastore);
      if (options.stopWhenErased) {
        if ((await recordedErasures(tx, context.privacyRequestId, datastore)).length > 0) return null;
      }
      return matchedSubtrees(tx, services, datastore, context.identities);
    });
    if (!tree) return null;
    trees.set(datastore, tree);
  }
  return trees;
}
