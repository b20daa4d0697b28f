// SQL for DSR policies, their rules and the storage destinations rules point at.
import type { ActionRule } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';

export interface PolicyRow {
  id: string;
  key: string;
  name: string;
  drp_action: string | null;
  execution_timeframe: number;
  /** The jurisdiction whose clock its requests run on when their location names none (migration 018). */
  jurisdiction: string | null;
  client_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A rule as stored: the shape the action types' parts of the run read (src/actions/registry.ts). */
export type RuleRow = ActionRule;

export interface PolicyDefinition {
  id: string;
  key: string;
  name: string;
  /** undefined keeps the stored value on update (and takes the default on insert). */
  drpAction: string | null | undefined;
  executionTimeframe: number | undefined;
  /** undefined keeps the stored value on update. */
  jurisdiction?: string | null;
  clientId: string;
}

export interface RuleDefinition {
  id: string;
  policyId: string;
  key: string;
  name: string;
  actionType: string;
  maskingStrategy: { strategy: string; configuration: Record<string, unknown> } | null;
  storageDestinationId: string | null;
  targets: string[];
}

export type PolicyWithRules = PolicyRow & { rules: RuleRow[] };

/** A policy with its rules, without its timestamps: what a privacy request's run uses of it. */
export type PolicyWithRulesAsRead = Omit<PolicyRow, 'created_at' | 'updated_at'> & { rules: RuleRow[] };

/**
 * SQL for one JSON object holding the policy `policyId` (an SQL expression) with its rules, shaped as
 * PolicyWithRulesAsRead: for a statement that reads a policy along with what refers to it.
 */
export function policyWithRulesJson(policyId: string): string {
  return `(SELECT jsonb_build_object(
             'id', p.id, 'key', p.key, 'name', p.name, 'drp_action', p.drp_action,
             'execution_timeframe', p.execution_timeframe, 'client_id', p.client_id,
             'rules', COALESCE((
               SELECT jsonb_agg(jsonb_build_object(
                        'id', r.id, 'policy_id', r.policy_id, 'key', r.key, 'name', r.name,
                        'action_type', r.action_type, 'masking_strategy', r.masking_strategy,
                        'storage_destination_id', r.storage_destination_id,
                        'storage_destination_key', s.key, 'targets', to_jsonb(r.targets))
                      ORDER BY r.created_at, r.key)
                 FROM rules r LEFT JOIN storage_destinations s ON s.id = r.storage_destination_id
                WHERE r.policy_id = p.id), '[]'::jsonb))
             FROM policies p WHERE p.id = ${policyId})`;
}

export const policyRepository = {
  async findByKey(db: Queryable, key: string): Promise<PolicyRow | undefined> {
    const { rows } = await db.query<PolicyRow>('SELECT * FROM policies WHERE key = $1', [key]);
    return rows[0];
  },

  async page(db: Queryable, limit: number, offset: number): Promise<PolicyRow[]> {
    const { rows } = await db.query<PolicyRow>('SELECT * FROM policies ORDER BY key LIMIT $1 OFFSET $2', [
      limit,
      offset,
    ]);
    return rows;
  },

  async count(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM policies');
    return rows[0]?.total ?? 0;
  },

  /** Inserts a new policy (owned by clientId) or updates the one with the same key. */
  async upsert(db: Queryable, policy: PolicyDefinition): Promise<void> {
    await db.query(
      `INSERT INTO policies (id, key, name, drp_action, execution_timeframe, client_id, jurisdiction)
       VALUES ($1, $2, $3, $4, COALESCE($5::int, 45), $6, $8)
       ON CONFLICT (key) DO UPDATE SET
         name = EXCLUDED.name,
         drp_action = CASE WHEN $7 THEN EXCLUDED.drp_action ELSE policies.drp_action END,
         execution_timeframe = COALESCE($5::int, policies.execution_timeframe),
         jurisdiction = CASE WHEN $9 THEN EXCLUDED.jurisdiction ELSE policies.jurisdiction END,
         updated_at = now()`,
      [
        policy.id,
        policy.key,
        policy.name,
        policy.drpAction ?? null,
        policy.executionTimeframe ?? null,
        policy.clientId,
        policy.drpAction !== undefined,
        policy.jurisdiction ?? null,
        policy.jurisdiction !== undefined,
      ],
    );
  },

  async touch(db: Queryable, policyId: string): Promise<void> {
    await db.query('UPDATE policies SET updated_at = now() WHERE id = $1', [policyId]);
  },

  async rulesOf(db: Queryable, policyIds: readonly string[]): Promise<RuleRow[]> {
    const { rows } = await db.query<RuleRow>(
      `SELECT r.id, r.policy_id, r.key, r.name, r.action_type, r.masking_strategy,
              r.storage_destination_id, s.key AS storage_destination_key, r.targets
         FROM rules r LEFT JOIN storage_destinations s ON s.id = r.storage_destination_id
        WHERE r.policy_id = ANY($1::text[])
        ORDER BY r.created_at, r.key`,
      [policyIds],
    );
    return rows;
  },

  async upsertRule(db: Queryable, rule: RuleDefinition): Promise<void> {
    await db.query(
      `INSERT INTO rules (id, policy_id, key, name, action_type, masking_strategy, storage_destination_id, targets)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::text[])
       ON CONFLICT (policy_id, key) DO UPDATE SET
         name = EXCLUDED.name,
         action_type = EXCLUDED.action_type,
         masking_strategy = EXCLUDED.masking_strategy,
         storage_destination_id = EXCLUDED.storage_destination_id,
         targets = EXCLUDED.targets,
         updated_at = now()`,
      [
        rule.id,
        rule.policyId,
        rule.key,
        rule.name,
        rule.actionType,
        rule.maskingStrategy === null ? null : JSON.stringify(rule.maskingStrategy),
        rule.storageDestinationId,
        rule.targets,
      ],
    );
  },

  async storageDestinationId(db: Queryable, key: string): Promise<string | undefined> {
    const { rows } = await db.query<{ id: string }>('SELECT id FROM storage_destinations WHERE key = $1', [
      key,
    ]);
    return rows[0]?.id;
  },

  /** The ids of the policies with these keys, by key (an unknown key is absent). */
  async idsByKey(db: Queryable, keys: readonly string[]): Promise<Map<string, string>> {
    const { rows } = await db.query<{ id: string; key: string }>(
      'SELECT id, key FROM policies WHERE key = ANY($1::text[])',
      [[...new Set(keys)]],
    );
    return new Map(rows.map((row) => [row.key, row.id]));
  },

  async byIds(db: Queryable, ids: readonly string[]): Promise<PolicyRow[]> {
    const { rows } = await db.query<PolicyRow>('SELECT * FROM policies WHERE id = ANY($1::text[])', [
      [...new Set(ids)],
    ]);
    return rows;
  },

  /** The policies with their rules, in the order given: the one way a policy is loaded whole. */
  async withRules(db: Queryable, policies: readonly PolicyRow[]): Promise<PolicyWithRules[]> {
    const rules = await policyRepository.rulesOf(
      db,
      policies.map((policy) => policy.id),
    );
    return policies.map((policy) => ({
      ...policy,
      rules: rules.filter((rule) => rule.policy_id === policy.id),
    }));
  },
};
