// Runs a DSR policy's rules for one privacy request over every datastore: access rules first (the
// matching entity trees, filtered by each rule's targets, sealed into the access package at the rule's
// storage destination), then erasure rules (each datastore in one transaction, every rule's change
// recorded in the audit log with the privacy request id as actor). Safe to run twice for one request:
// the package is rewritten, and a datastore whose erasure already committed is not erased again.
// It never returns, logs or audits a personal value: the summary holds keys and counts only.
import { recordAudit } from '../audit/audit-log.ts';
import type { Queryable } from '../db/database.ts';
import {
  deleteAttributes,
  deleteFileAttributes,
  forgetEntities,
  listDatastoreNames,
  loadEntities,
  loadSubtrees,
  matchIdentities,
  type SubjectEntity,
  setAttributeValues,
  subtreeOf,
} from '../datastore/subject-store.ts';
import { policyRepository, type RuleRow } from '../policies/repository.ts';
import type { Services } from '../runtime/services.ts';
import {
  type AccessPackage,
  isStorableRequestId,
  loadAccessPackage,
  selectForPackage,
  storeAccessPackage,
} from './access-package.ts';
import {
  isValueMaskingStrategy,
  parseTargets,
  type TargetSelection,
  unionOfTargets,
  valueMasker,
} from './masking.ts';
import {
  ACCESS_ACTION,
  ERASURE_ACTION,
  listStorageDestinations,
  lockRequestDatastore,
  recordedErasures,
  type StorageDestination,
} from './rule-run-repository.ts';

export interface RuleRunInput {
  privacyRequestId: string;
  policyKey: string;
  identityValues: string[];
}

export interface AccessDatastoreSummary {
  datastore: string;
  /** Entities found by the identities, with their descendants. */
  matched_entities: number;
  /** Entities, attributes and files the targets put into the package. */
  entities: number;
  attributes: number;
  files: number;
}

export interface AccessPackageSummary {
  storage_destination_key: string;
  rule_keys: string[];
  /** Size of the stored (sealed) package file. */
  bytes: number;
  /** True when a rerun kept the package of an earlier run because erasure had already begun. */
  reused: boolean;
  datastores: AccessDatastoreSummary[];
}

export interface ErasureSummary {
  rule_key: string;
  strategy: string;
  datastore: string;
  matched_entities: number;
  /** Entities of the matched trees whose tables the rule's targets concern. */
  entities_targeted: number;
  attributes_masked: number;
  attributes_deleted: number;
  files_deleted: number;
  entities_forgotten: number;
  /** True when an earlier run of the request had already committed this erasure; nothing was changed. */
  already_applied: boolean;
}

export interface RuleRunSummary {
  privacy_request_id: string;
  policy_key: string;
  datastores: string[];
  access: AccessPackageSummary[];
  erasure: ErasureSummary[];
}

type RuleServices = Pick<Services, 'db' | 'keyring' | 'config'>;

/** Why a rule run could not start; the executor records it as the request's error, never as HTTP. */
export class RuleRunError extends Error {
  override name = 'RuleRunError';
  readonly code: 'unstorable_request_id' | 'unknown_policy';

  constructor(code: RuleRunError['code'], message: string) {
    super(message);
    this.code = code;
  }
}

interface MaskingStrategy {
  strategy: string;
  configuration: Record<string, unknown>;
}

const countAttributes = (entities: readonly { attributes: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.attributes.length, 0);
const countFiles = (entities: readonly { files: unknown[] }[]) =>
  entities.reduce((sum, entity) => sum + entity.files.length, 0);

/** The matched trees of one datastore: roots found through the blind index, then every descendant. */
async function matchedTrees(
  db: Queryable,
  services: RuleServices,
  datastore: string,
  identityValues: readonly string[],
): Promise<SubjectEntity[]> {
  const roots = [...new Set((await matchIdentities(db, services.keyring, datastore, identityValues)).flat())];
  return loadSubtrees(db, services.keyring, datastore, roots);
}

export async function runPolicyRules(services: RuleServices, input: RuleRunInput): Promise<RuleRunSummary> {
  if (!isStorableRequestId(input.privacyRequestId)) {
    throw new RuleRunError(
      'unstorable_request_id',
      'A privacy request id may only hold letters, digits, "_" and "-".',
    );
  }
  const policy = await policyRepository.findByKey(services.db, input.policyKey);
  if (!policy) throw new RuleRunError('unknown_policy', `No policy with key ${input.policyKey}.`);
  const rules = await policyRepository.rulesOf(services.db, [policy.id]);
  const identityValues = [...new Set(input.identityValues.filter((value) => value.trim() !== ''))];
  const datastores = await listDatastoreNames(services.db);

  const accessRules = rules.filter((rule) => rule.action_type === 'access');
  const erasureRules = rules.filter((rule) => rule.action_type === 'erasure');
  const context = { ...input, identityValues, datastores };
  const access = accessRules.length > 0 ? await runAccessRules(services, context, accessRules) : [];
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
  };
}

interface RunContext extends RuleRunInput {
  datastores: string[];
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
  accessRules: RuleRow[],
): Promise<AccessPackageSummary[]> {
  const destinations = new Map(
    (await listStorageDestinations(services.db)).map((destination) => [destination.id, destination]),
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
  // earlier run stored before it began erasing is the complete one, so a rerun keeps it.
  let trees = (await recordedErasures(services.db, context.privacyRequestId)).length
    ? null
    : await collectTrees(services, context, { stopWhenErased: true });
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
      return matchedTrees(tx, services, datastore, context.identityValues);
    });
    if (!tree) return null;
    trees.set(datastore, tree);
  }
  return trees;
}

function summaryFromAudit(entry: Record<string, unknown>, datastore: string): ErasureSummary {
  const count = (name: string) => Number(entry[name] ?? 0);
  return {
    rule_key: String(entry.rule_key),
    strategy: String(entry.strategy),
    datastore,
    matched_entities: count('matched_entities'),
    entities_targeted: count('entities_targeted'),
    attributes_masked: count('attributes_masked'),
    attributes_deleted: count('attributes_deleted'),
    files_deleted: count('files_deleted'),
    entities_forgotten: count('entities_forgotten'),
    already_applied: true,
  };
}

/** Every erasure rule over one datastore, in one transaction, unless an earlier run already committed it. */
async function eraseDatastore(
  services: RuleServices,
  context: RunContext,
  erasureRules: RuleRow[],
  datastore: string,
): Promise<ErasureSummary[]> {
  return services.db.transaction(async (tx) => {
    await lockRequestDatastore(tx, context.privacyRequestId, datastore);
    const recorded = await recordedErasures(tx, context.privacyRequestId, datastore);
    if (recorded.length > 0) return recorded.map((entry) => summaryFromAudit(entry.details, datastore));

    let entities = await matchedTrees(tx, services, datastore, context.identityValues);
    const matched = entities.length;
    const summaries: ErasureSummary[] = [];
    for (const rule of erasureRules) {
      const strategy = (rule.masking_strategy ?? {
        strategy: 'nullify',
        configuration: {},
      }) as MaskingStrategy;
      const selection = parseTargets(rule.targets);
      const targeted = entities.filter((entity) => selection.concernsTable(entity.name));
      const outcome = await applyErasure(tx, services, datastore, strategy, selection, targeted);
      const summary: ErasureSummary = {
        rule_key: rule.key,
        strategy: strategy.strategy,
        datastore,
        matched_entities: matched,
        entities_targeted: targeted.length,
        ...outcome.counts,
        already_applied: false,
      };
      summaries.push(summary);
      await recordAudit(tx, {
        action: ERASURE_ACTION,
        datastore,
        entityIds: outcome.changedIds,
        actor: context.privacyRequestId,
        requestId: context.privacyRequestId,
        details: {
          policy_key: context.policyKey,
          rule_key: rule.key,
          strategy: strategy.strategy,
          targets: rule.targets,
          matched_entities: summary.matched_entities,
          entities_targeted: summary.entities_targeted,
          ...outcome.counts,
        },
      });
      // The next rule works on what this one left: forgotten entities are gone, masked values changed.
      if (rule !== erasureRules.at(-1)) {
        entities = await loadEntities(
          tx,
          services.keyring,
          datastore,
          entities.map((entity) => entity.id),
        );
      }
    }
    return summaries;
  });
}

interface ErasureOutcome {
  counts: Pick<
    ErasureSummary,
    'attributes_masked' | 'attributes_deleted' | 'files_deleted' | 'entities_forgotten'
  >;
  changedIds: string[];
}

async function applyErasure(
  tx: Queryable,
  services: RuleServices,
  datastore: string,
  strategy: MaskingStrategy,
  selection: TargetSelection,
  targeted: SubjectEntity[],
): Promise<ErasureOutcome> {
  const counts = { attributes_masked: 0, attributes_deleted: 0, files_deleted: 0, entities_forgotten: 0 };
  const selectedFiles = targeted.flatMap((entity) =>
    entity.files
      .filter((file) => selection.selectsAttribute(entity.name, file.name))
      .map((file) => ({ entityId: entity.id, name: file.name })),
  );

  if (strategy.strategy === 'forget') {
    const roots = targeted.map((entity) => entity.id);
    const erasedIds = (await subtreeOf(tx, datastore, roots)).map((entity) => entity.id);
    const erased = await forgetEntities(tx, datastore, roots);
    counts.entities_forgotten = erased.entities;
    counts.attributes_deleted = erased.attributes;
    counts.files_deleted = erased.files;
    return { counts, changedIds: erasedIds };
  }

  if (strategy.strategy === 'delete') {
    const selectedValues = targeted.flatMap((entity) =>
      entity.attributes
        .filter((attribute) => selection.selectsAttribute(entity.name, attribute.name))
        .map((attribute) => ({ entityId: entity.id, name: attribute.name })),
    );
    const names = new Map(
      [...selectedValues, ...selectedFiles].map((item) => [`${item.entityId}:${item.name}`, item]),
    );
    await deleteAttributes(tx, datastore, [...names.values()]);
    counts.attributes_deleted = selectedValues.length;
    counts.files_deleted = selectedFiles.length;
    return { counts, changedIds: [...new Set([...names.values()].map((item) => item.entityId))] };
  }

  if (!isValueMaskingStrategy(strategy.strategy)) {
    throw new Error(`Unknown masking strategy ${strategy.strategy}.`);
  }
  const mask = valueMasker(services.keyring, strategy.strategy, strategy.configuration ?? {});
  const changes = targeted.flatMap((entity) =>
    entity.attributes.flatMap((attribute) => {
      if (!selection.selectsAttribute(entity.name, attribute.name) || attribute.value === null) return [];
      const value = mask(attribute.value);
      return value === attribute.value ? [] : [{ entityId: entity.id, name: attribute.name, value }];
    }),
  );
  await setAttributeValues(tx, services.keyring, datastore, changes);
  // A file cannot be nulled, hashed or rewritten in place: a targeted file attribute is removed.
  counts.files_deleted = await deleteFileAttributes(tx, datastore, selectedFiles);
  counts.attributes_masked = changes.length;
  return {
    counts,
    changedIds: [...new Set([...changes, ...selectedFiles].map((item) => item.entityId))],
  };
}
