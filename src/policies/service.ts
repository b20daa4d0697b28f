// DSR policies and their rules: what a privacy request of that policy does (access collects into a storage
// destination, erasure masks). Owns the rule checks (strategy configuration, storage destination, target
// shape) and the defaults: erasure rules mask with `nullify`, access rules store to `default_storage`,
// targets default to `*` (an update rule must name its own: they publish what may be corrected). It never decides an HTTP status beyond the domain error kinds.
import { randomUUID } from 'node:crypto';
import { actionType, actionTypes, fromRegistry } from '../actions/registry.ts';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import type { Database } from '../db/database.ts';
import { jurisdictionByCode, unknownJurisdictionMessage } from '../deadlines/jurisdictions.ts';
import { invalid, notFound } from '../errors.ts';
import { type BulkResult, echoFields, itemValidator } from '../validation/bulk.ts';
import { pageOf } from '../validation/page.ts';
import { type PolicyRow, policyRepository, type RuleDefinition, type RuleRow } from './repository.ts';
import {
  POLICY_FIELDS,
  PolicyItem,
  type PolicyView,
  RULE_FIELDS,
  type RuleItem,
  ruleItem,
  type RuleView,
} from './schemas.ts';
import {
  MASKING_STRATEGIES,
  MASKING_STRATEGY_NAMES,
  type MaskingStrategyName,
} from '../masking/strategies.ts';

export const DEFAULT_STORAGE_KEY = 'default_storage';
export const DEFAULT_ERASURE_STRATEGY = 'nullify';

const checkPolicy = itemValidator(PolicyItem);
const checkRule = fromRegistry(() => itemValidator(ruleItem()));
/** The action types whose rules take `part`, for the sentence refusing it elsewhere. */
const takenBy = (part: 'maskingStrategy' | 'storageDestination') =>
  actionTypes()
    .filter((definition) => definition.rule[part])
    .map((definition) => definition.name)
    .join(' and ');
const checkConfiguration = Object.fromEntries(
  MASKING_STRATEGY_NAMES.map((strategy) => [
    strategy,
    itemValidator(MASKING_STRATEGIES[strategy].configuration, 'masking_strategy.configuration'),
  ]),
) as Record<MaskingStrategyName, (configuration: unknown) => { ok: boolean; message?: string }>;

export class PolicyService {
  readonly #db: Database;

  constructor(services: { db: Database }) {
    this.#db = services.db;
  }

  async list(page: number, size: number) {
    const [rows, total] = await Promise.all([
      policyRepository.page(this.#db, size, (page - 1) * size),
      policyRepository.count(this.#db),
    ]);
    return pageOf(await this.#withRules(rows), total, page, size);
  }

  async get(key: string): Promise<PolicyView> {
    const [view] = await this.#withRules([await this.#find(key)]);
    return view as PolicyView;
  }

  /** Creates or updates each policy on its own; omitted optional fields keep their stored values. */
  async upsert(by: ChangeActor, items: readonly unknown[]): Promise<BulkResult<PolicyView>> {
    const result: BulkResult<PolicyView> = { succeeded: [], failed: [] };
    const seen = new Set<string>();
    for (const item of items) {
      const fail = (message: string) =>
        result.failed.push({ message, data: echoFields(item, POLICY_FIELDS) });
      const checked = checkPolicy(item);
      if (!checked.ok) {
        fail(checked.message);
        continue;
      }
      const policy = checked.value;
      if (policy.jurisdiction && !jurisdictionByCode(policy.jurisdiction)) {
        fail(unknownJurisdictionMessage(policy.jurisdiction));
        continue;
      }
      if (seen.has(policy.key)) {
        fail(`key ${policy.key} appears more than once in this request.`);
        continue;
      }
      seen.add(policy.key);
      await this.#db.transaction(async (tx) => {
        await policyRepository.upsert(tx, {
          id: `pol_${randomUUID()}`,
          key: policy.key,
          name: policy.name,
          drpAction: policy.drp_action,
          executionTimeframe: policy.execution_timeframe,
          jurisdiction: policy.jurisdiction,
          clientId: principalName(by.principal),
        });
        await recordChange(tx, by, 'policy.upsert', { key: policy.key, fields: Object.keys(policy) });
      });
      result.succeeded.push(await this.get(policy.key));
    }
    return result;
  }

  /** Creates or updates each rule of a policy on its own; a rule item is the rule's whole definition. */
  async upsertRules(
    by: ChangeActor,
    policyKey: string,
    items: readonly unknown[],
  ): Promise<BulkResult<RuleView>> {
    const policy = await this.#find(policyKey);
    refuseRulesWithoutAction(items);
    refuseUnnamedTargets(items);
    const result: BulkResult<RuleView> = { succeeded: [], failed: [] };
    const seen = new Set<string>();
    const applied: string[] = [];
    for (const item of items) {
      let definition = await this.#ruleDefinition(policy.id, item);
      if (typeof definition !== 'string' && seen.has(definition.key)) {
        definition = `key ${definition.key} appears more than once in this request.`;
      }
      if (typeof definition === 'string') {
        result.failed.push({ message: definition, data: echoFields(item, RULE_FIELDS) });
        continue;
      }
      seen.add(definition.key);
      const rule = definition;
      await this.#db.transaction(async (tx) => {
        await policyRepository.upsertRule(tx, rule);
        await recordChange(tx, by, 'policy.rule.upsert', {
          policy_key: policyKey,
          rule_key: rule.key,
          fields: Object.keys(item as object).filter((field) =>
            (RULE_FIELDS as readonly string[]).includes(field),
          ),
        });
      });
      applied.push(definition.key);
    }
    if (applied.length > 0) await policyRepository.touch(this.#db, policy.id);
    const rules = await policyRepository.rulesOf(this.#db, [policy.id]);
    for (const key of applied) {
      const rule = rules.find((candidate) => candidate.key === key);
      if (rule) result.succeeded.push(toRuleView(rule));
    }
    return result;
  }

  /** The rule to store for one item, or the sentence saying why the item fails. */
  async #ruleDefinition(policyId: string, item: unknown): Promise<RuleDefinition | string> {
    const checked = checkRule()(item);
    if (!checked.ok) return checked.message;
    const rule = checked.value as RuleItem;
    const takes = (actionType(rule.action_type) as NonNullable<ReturnType<typeof actionType>>).rule;
    if (rule.masking_strategy !== undefined && !takes.maskingStrategy)
      return `masking_strategy applies to ${takenBy('maskingStrategy')} rules only.`;
    if (rule.storage_destination_key !== undefined && !takes.storageDestination)
      return `storage_destination_key applies to ${takenBy('storageDestination')} rules only.`;
    if (rule.targets !== undefined && !takes.targets)
      return `targets do not apply to ${rule.action_type} rules.`;
    const targets = [...new Set(rule.targets ?? ['*'])];
    const base = { id: `rul_${randomUUID()}`, policyId, key: rule.key, name: rule.name, targets };
    let storageDestinationId: string | null = null;
    if (takes.storageDestination) {
      const storageKey = rule.storage_destination_key ?? DEFAULT_STORAGE_KEY;
      storageDestinationId = (await policyRepository.storageDestinationId(this.#db, storageKey)) ?? null;
      if (!storageDestinationId) return `No storage destination with key ${storageKey}.`;
    }
    if (!takes.maskingStrategy)
      return { ...base, actionType: rule.action_type, maskingStrategy: null, storageDestinationId };
    const strategy = rule.masking_strategy?.strategy ?? DEFAULT_ERASURE_STRATEGY;
    const configuration = (rule.masking_strategy?.configuration ?? {}) as Record<string, unknown>;
    const configured = checkConfiguration[strategy](configuration);
    if (!configured.ok) return configured.message ?? 'masking_strategy.configuration is invalid.';
    return {
      ...base,
      actionType: rule.action_type,
      maskingStrategy: { strategy, configuration },
      storageDestinationId,
    };
  }

  async #find(key: string): Promise<PolicyRow> {
    const policy = await policyRepository.findByKey(this.#db, key);
    if (!policy) throw notFound(`No policy with key ${key}.`);
    return policy;
  }

  async #withRules(policies: PolicyRow[]): Promise<PolicyView[]> {
    const loaded = await policyRepository.withRules(this.#db, policies);
    return loaded.map((policy) => ({
      id: policy.id,
      name: policy.name,
      key: policy.key,
      drp_action: policy.drp_action,
      execution_timeframe: policy.execution_timeframe,
      jurisdiction: policy.jurisdiction,
      client_id: policy.client_id,
      rules: policy.rules.map(toRuleView),
      created_at: policy.created_at.toISOString(),
      updated_at: policy.updated_at.toISOString(),
    }));
  }
}

/**
 * A rule without an action type is refused with the whole body, before anything is stored: there is no
 * default action, since a default would silently turn, say, an access policy into an erasure (issue 37).
 * Fides answers such a body 422 as a whole too (its action_type is a required field).
 */
function refuseRulesWithoutAction(items: readonly unknown[]) {
  const missing = items.flatMap((item, index) =>
    typeof item === 'object' && item !== null && !('action_type' in item)
      ? [
          `rule ${index + 1}${typeof (item as { key?: unknown }).key === 'string' ? ` (${(item as { key: string }).key})` : ''}`,
        ]
      : [],
  );
  if (missing.length === 0) return;
  throw invalid(
    `action_type is required: ${missing.join(', ')} names no action. Choose one of ${actionTypes()
      .map((definition) => definition.name)
      .join(', ')} (GET /v1/action-type); nothing was stored.`,
  );
}

/**
 * A rule whose action type publishes through its targets (an update rule: what the public may correct)
 * names them, `<table>.<attribute>` or `<table>.*`: without targets, or with `*` (every attribute of every
 * datastore, the identities included), the whole body is refused before anything is stored, as a rule
 * without an action is. docs/decisions.md, "Corrections are published, not probed".
 */
function refuseUnnamedTargets(items: readonly unknown[]) {
  const unnamed = items.flatMap((item, index) => {
    if (typeof item !== 'object' || item === null) return [];
    const {
      action_type: type,
      key,
      targets,
    } = item as { action_type?: unknown; key?: unknown; targets?: unknown };
    const definition = typeof type === 'string' ? actionType(type) : undefined;
    if (!definition?.rule.namedTargets) return [];
    const named = Array.isArray(targets) && targets.length > 0 && !targets.includes('*');
    return named ? [] : [`rule ${index + 1}${typeof key === 'string' ? ` (${key})` : ''}`];
  });
  if (unnamed.length === 0) return;
  const types = actionTypes()
    .filter((definition) => definition.rule.namedTargets)
    .map((definition) => definition.name)
    .join(', ');
  throw invalid(
    `targets is required for ${types} rules and may not be *: ${unnamed.join(', ')} must name what it publishes, each as <table>.<attribute> or <table>.*; nothing was stored.`,
  );
}

function toRuleView(rule: RuleRow): RuleView {
  return {
    id: rule.id,
    name: rule.name,
    key: rule.key,
    action_type: rule.action_type,
    masking_strategy: rule.masking_strategy,
    storage_destination_id: rule.storage_destination_id,
    storage_destination_key: rule.storage_destination_key,
    targets: rule.targets,
  };
}
