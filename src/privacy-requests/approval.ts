// Approval: the moment a request's execution plan is snapshotted (each pre-execution webhook of its
// policy in order, the rules, each post-execution webhook), logged and queued, inside the caller's
// transaction. Used by a reviewer's approval, an all-eligible pre-approval and automatic approval at
// intake (intake.ts). A public erasure (one received through the privacy center) is never approved without
// a person unless LETHE_PUBLIC_ERASURE_AUTO_APPROVE: neither automatically nor by its pre-approval
// webhooks' answers.
import { needsPerson } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Services } from '../services.ts';
import { type PolicyWebhookRow, webhookRepository } from '../webhooks/repository.ts';
import { enqueueAdvance } from './jobs.ts';
import type { LogEntry } from './log-repository.ts';
import { privacyRequestRepository as repo, type RequestRow } from './repository.ts';
import { type NewStep, stepRepository } from './step-repository.ts';
import { loadPolicyEmbed } from './view.ts';

/**
 * Whether a request waits for an operator whatever its pre-approval webhooks answer: one of its policy's
 * action types needs a person (a public erasure unless LETHE_PUBLIC_ERASURE_AUTO_APPROVE, a correction).
 */
export async function awaitsOperator(
  services: Pick<Services, 'config'>,
  tx: Queryable,
  row: Pick<RequestRow, 'client_id' | 'policy_id'>,
): Promise<boolean> {
  return needsPerson((await loadPolicyEmbed(tx, row.policy_id)).rules, row, services.config);
}

/** pending -> approved: snapshot the plan after any pre-approval steps, log, queue the work. */
export async function approveRequest(
  queue: Queue,
  tx: Queryable,
  row: RequestRow,
  by: string | null,
  message: string,
): Promise<void> {
  const now = new Date();
  const plan = planOf(await webhookRepository.webhooksOfPolicy(tx, row.policy_id));
  await repo.transition(tx, {
    id: row.id,
    from: 'pending',
    to: 'approved',
    changes: by ? { reviewed_at: now, reviewed_by: by } : {},
    message,
    details: planDetails(plan),
  });
  const existing = await stepRepository.steps(tx, row.id);
  await stepRepository.insertSteps(tx, row.id, existing.length, plan);
  await enqueueAdvance(queue, tx, row.id);
}

/** The plan approval snapshots: each pre-execution webhook in order, the rules, each post-execution webhook. */
export function planOf(webhooks: readonly PolicyWebhookRow[]): NewStep[] {
  const webhookStep = (webhook: PolicyWebhookRow): NewStep => ({
    kind: webhook.timing,
    webhookId: webhook.id,
    webhookKey: webhook.key,
    webhookName: webhook.name,
    direction: webhook.direction,
    connectionKey: webhook.connection_key,
  });
  return [
    ...webhooks.filter((webhook) => webhook.timing === 'pre').map(webhookStep),
    {
      kind: 'rules',
      webhookId: null,
      webhookKey: null,
      webhookName: null,
      direction: null,
      connectionKey: null,
    },
    ...webhooks.filter((webhook) => webhook.timing === 'post').map(webhookStep),
  ];
}

/** What an approval's log entry records of the plan it snapshotted: each step, in order. */
function planDetails(plan: readonly NewStep[]): Record<string, unknown> {
  return { plan: plan.map((step) => (step.kind === 'rules' ? 'rules' : `${step.kind}:${step.webhookKey}`)) };
}

export function approvedEntry(plan: readonly NewStep[], message: string): LogEntry {
  return {
    kind: 'transition',
    fromStatus: 'pending',
    toStatus: 'approved',
    message,
    details: planDetails(plan),
  };
}
