// The erasure half of a rule run: every erasure rule over one datastore in one transaction, each rule's
// change recorded in the audit log with the privacy request id as actor, and a datastore whose erasure
// already committed left alone (its summary read back from the audit log). It never returns, logs or
// audits a personal value.
import { recordAudit } from '../../audit/audit-log.ts';
import type { Queryable } from '../../db/database.ts';
import { matchedSubtrees } from '../../datastore/identity-match.ts';
import { loadEntities, type SubjectEntity, subtreeOf } from '../../datastore/subject-store.ts';
import {
  deleteAttributes,
  deleteFileAttributes,
  forgetEntities,
  setAttributeValues,
} from '../../datastore/subject-writes.ts';
import type { RuleRow } from '../../policies/repository.ts';
import { isMaskingStrategyName, strategyEffect, valueMasker } from '../../masking/strategies.ts';
import { parseTargets, type TargetSelection } from './targets.ts';
import { ERASURE_ACTION, lockRequestDatastore, recordedErasures } from './run-repository.ts';
import type { MaskingStrategy, RuleServices, RunContext } from './context.ts';
import type { ErasureSummary } from './summary.ts';

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
export async function eraseDatastore(
  services: RuleServices,
  context: RunContext,
  erasureRules: readonly RuleRow[],
  datastore: string,
): Promise<ErasureSummary[]> {
  return services.db.transaction(async (tx) => {
    await lockRequestDatastore(tx, context.privacyRequestId, datastore);
    const recorded = await recordedErasures(tx, context.privacyRequestId, datastore);
    if (recorded.length > 0) return recorded.map((entry) => summaryFromAudit(entry.details, datastore));

    let entities = await matchedSubtrees(tx, services, datastore, context.identities);
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

  if (!isMaskingStrategyName(strategy.strategy)) {
    throw new Error(`Unknown masking strategy ${strategy.strategy}.`);
  }
  const effect = strategyEffect(strategy.strategy);

  if (effect === 'forget') {
    const roots = targeted.map((entity) => entity.id);
    const erasedIds = (await subtreeOf(tx, datastore, roots)).map((entity) => entity.id);
    const erased = await forgetEntities(tx, datastore, roots);
    counts.entities_forgotten = erased.entities;
    counts.attributes_deleted = erased.attributes;
    counts.files_deleted = erased.files;
    return { counts, changedIds: erasedIds };
  }

  if (effect === 'delete') {
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
