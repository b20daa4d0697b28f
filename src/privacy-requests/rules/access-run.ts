// The access half of a rule run: the matching entity trees of every datastore, filtered by each access
// rule's targets, sealed into the access package at the rule's storage destination, and each datastore's
// read recorded in the audit log with the privacy request id as actor. A rerun after erasure began keeps
// the package an earlier run stored. It never returns, logs or audits a personal value.
import { recordAudit } from '../../audit/audit-log.ts';
import { matchedSubtrees } from '../../datastore/identity-match.ts';
import type { SubjectEntity } from '../../datastore/subject-store.ts';
import type { RuleRow } from '../../policies/repository.ts';
import {
  type AccessPackage,
  loadAccessPackage,
  selectForPackage,
  storeAccessPackage,
} from './access-package.ts';
import { parseTargets, unionOfTargets } from './targets.ts';
import {
  ACCESS_ACTION,
  lockRequestDatastore,
  recordedErasures,
  type StorageDestination,
} from './run-repository.ts';
import type { AccessPackageSummary } from './summary.ts';
import type { RuleServices, RunContext } from './context.ts';

const countAttributes = (entities: readonly { attributes: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.attributes.length, 0);
const countFiles = (entities: readonly { files: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.files.length, 0);

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

export async function runAccessRules(
  services: RuleServices,
  context: RunContext,
  accessRules: readonly RuleRow[],
): Promise<AccessPackageSummary[]> {
  const destinations = new Map(
    context.storageDestinations.map((destination) => [destination.id, destination]),
  );
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
