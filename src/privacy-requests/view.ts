// The seed's privacy_request object, built the same way for the API and for the callback body: the
// embedded policy with its rules, `due_date` (the clock's, src/deadlines/: the earlier of the law's deadline
// and the policy's timeframe, moved by an extension) and `days_left` (frozen once the request is closed).
import { weightiestAction } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import { addDays } from '../deadlines/calendar.ts';
import { daysLeft } from '../deadlines/clock.ts';
import { type PolicyWithRulesAsRead, policyRepository } from '../policies/repository.ts';
import type { PolicyEmbed, RequestRow } from './facts.ts';
import { CLOSED_STATUSES } from './statuses.ts';

export type { PolicyEmbed } from './facts.ts';

export interface PrivacyRequestView {
  id: string;
  external_id: string | null;
  status: string;
  requested_at: string;
  started_processing_at: string | null;
  finished_processing_at: string | null;
  reviewed_at: string | null;
  reviewed_by: string | null;
  finalized_at: string | null;
  finalized_by: string | null;
  submitted_by: string | null;
  custom_privacy_request_fields_approved_by: string | null;
  custom_privacy_request_fields_approved_at: string | null;
  identity_verified_at: string | null;
  client_id: string | null;
  origin: string | null;
  policy_id: string;
  policy: PolicyEmbed;
  property_id: string | null;
  cancel_reason: string | null;
  cancel_reason_code: string | null;
  canceled_at: string | null;
  consent_preferences: { data_use: string; opt_in: boolean }[];
  source: string | null;
  paused_at: string | null;
  due_date: string;
  days_left: number;
  custom_fields: unknown[];
  location: string | null;
  recipients_notified: string[] | null;
}

/** The clock's fields of a request (docs/deadlines.md), shown to management readers beside the seed's. */
export interface ClockView {
  jurisdiction: string | null;
  acknowledged_at: string | null;
  acknowledge_due_at: string | null;
  refused_late: boolean;
  extended_at: string | null;
  extension_reason: string | null;
  denial_reason: string | null;
  duplicate_of: string | null;
  excessive: boolean;
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/** The policies (with rules) of the given ids, for embedding. */
export async function loadPolicyEmbeds(
  db: Queryable,
  policyIds: readonly string[],
): Promise<Map<string, PolicyEmbed>> {
  const policies = await policyRepository.withRules(db, await policyRepository.byIds(db, policyIds));
  return new Map(policies.map((policy) => [policy.id, toPolicyEmbed(policy)]));
}

/** The embedded form of a policy loaded whole (the rules without their targets and destination keys). */
export function toPolicyEmbed(policy: PolicyWithRulesAsRead): PolicyEmbed {
  return {
    id: policy.id,
    name: policy.name,
    key: policy.key,
    drp_action: policy.drp_action,
    execution_timeframe: policy.execution_timeframe,
    client_id: policy.client_id,
    rules: policy.rules.map((rule) => ({
      id: rule.id,
      name: rule.name,
      key: rule.key,
      action_type: rule.action_type,
      masking_strategy: rule.masking_strategy,
      storage_destination_id: rule.storage_destination_id,
    })),
  };
}

/** The embedded policy of one request (policies cannot be deleted while requests reference them). */
export async function loadPolicyEmbed(db: Queryable, policyId: string): Promise<PolicyEmbed> {
  const policy = (await loadPolicyEmbeds(db, [policyId])).get(policyId);
  if (!policy) throw new Error(`policy ${policyId} of a privacy request is missing`);
  return policy;
}

/**
 * Fides' `policy_action` of the callback body: the weightiest of the policy's action types (erasure first,
 * src/actions/registry.ts: a receiver must not miss that data is going away), else null.
 */
export function policyAction(policy: PolicyEmbed): string | null {
  return weightiestAction(policy.rules.map((rule) => rule.action_type));
}

export function toPrivacyRequestView(
  row: RequestRow,
  policy: PolicyEmbed,
  now = new Date(),
): PrivacyRequestView {
  // Rows received before the clock existed were given their policy's timeframe by migration 018.
  const due = row.due_at ?? addDays(row.requested_at, policy.execution_timeframe);
  const closedAt = CLOSED_STATUSES.includes(row.status)
    ? (row.finalized_at ?? row.canceled_at ?? row.finished_processing_at ?? now)
    : null;
  return {
    id: row.id,
    external_id: row.external_id,
    status: row.status,
    requested_at: row.requested_at.toISOString(),
    started_processing_at: iso(row.started_processing_at),
    finished_processing_at: iso(row.finished_processing_at),
    reviewed_at: iso(row.reviewed_at),
    reviewed_by: row.reviewed_by,
    finalized_at: iso(row.finalized_at),
    finalized_by: row.finalized_by,
    submitted_by: row.submitted_by,
    custom_privacy_request_fields_approved_by: null,
    custom_privacy_request_fields_approved_at: null,
    identity_verified_at: iso(row.identity_verified_at),
    client_id: row.client_id,
    origin: row.origin,
    policy_id: row.policy_id,
    policy,
    property_id: null,
    cancel_reason: row.cancel_reason,
    cancel_reason_code: row.cancel_reason_code,
    canceled_at: iso(row.canceled_at),
    consent_preferences: row.consent_preferences,
    source: row.source,
    paused_at: iso(row.paused_at),
    due_date: due.toISOString(),
    days_left: daysLeft(due, closedAt, now),
    custom_fields: row.custom_fields,
    location: row.location,
    recipients_notified: row.recipients_notified ?? null,
  };
}

export function toClockView(row: RequestRow): ClockView {
  return {
    jurisdiction: row.jurisdiction,
    acknowledged_at: iso(row.acknowledged_at),
    acknowledge_due_at: iso(row.acknowledge_due_at),
    refused_late: row.refused_late,
    extended_at: iso(row.extended_at),
    extension_reason: row.extension_reason,
    denial_reason: row.denial_reason,
    duplicate_of: row.duplicate_of,
    excessive: row.excessive,
  };
}
