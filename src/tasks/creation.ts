// The tasks a privacy request gets when its rules have run: one per manual system and action, for every
// action of its policy (its rules' action types, else its drp_action) that the system lists. The executor
// calls `openTasks` inside the transaction that moves the request to `requires_input`, so a crash leaves
// either the move with its tasks or neither; a rerun finds the tasks it already made (one per system and
// action) and makes no second one.
import { emitTaskEvent } from '../events/emit.ts';
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { manualSystemRepository, type ManualSystemRow } from '../manual-systems/repository.ts';
import type { ManualAction } from '../manual-systems/schemas.ts';
import { logRepository } from '../privacy-requests/log-repository.ts';
import type { PolicyWithRulesAsRead } from '../policies/repository.ts';
import type { RequestRow } from '../privacy-requests/facts.ts';
import { type NewTask, taskRepository } from './repository.ts';

const DAY_MS = 86_400_000;
const MANUAL_ACTIONS: readonly ManualAction[] = ['access', 'erasure'];

/** The actions a request of this policy takes, as manual systems list them. */
export function actionsOfPolicy(policy: Pick<PolicyWithRulesAsRead, 'rules' | 'drp_action'>): ManualAction[] {
  const named = policy.rules.length > 0 ? policy.rules.map((rule) => rule.action_type) : [policy.drp_action];
  return MANUAL_ACTIONS.filter((action) => named.includes(action));
}

/**
 * When a task falls due: `marginDays` before the earlier of the request's legal due date (its
 * jurisdiction's, when it has one) and the policy's own timeframe, so that a task never falls due after
 * the request does (a policy of 45 days on a GDPR request due in a month, issue 37).
 */
export function taskDueAt(
  request: Pick<RequestRow, 'requested_at' | 'due_at'>,
  executionTimeframeDays: number,
  marginDays: number,
): Date {
  const policyDue = request.requested_at.getTime() + executionTimeframeDays * DAY_MS;
  const requestDue = request.due_at ? Math.min(request.due_at.getTime(), policyDue) : policyDue;
  return new Date(requestDue - marginDays * DAY_MS);
}

/** The tasks a request calls for, not yet stored: what the systems listing its actions ask of it. */
export async function plannedTasks(
  db: Queryable,
  policy: Pick<PolicyWithRulesAsRead, 'rules' | 'drp_action' | 'execution_timeframe'>,
  request: Pick<RequestRow, 'requested_at' | 'due_at'>,
  marginDays: number,
): Promise<NewTask[]> {
  const actions = actionsOfPolicy(policy);
  if (actions.length === 0) return [];
  const systems = await manualSystemRepository.systemsFor(db, actions);
  const dueAt = taskDueAt(request, policy.execution_timeframe, marginDays);
  return systems.flatMap((system: ManualSystemRow) =>
    actions
      .filter((action) => system.actions.includes(action))
      .map((action): NewTask => ({
        id: randomUUID(),
        systemKey: system.key,
        systemName: system.name,
        action,
        fields: system.fields,
        instructions: system.instructions,
        translations: system.translations,
        respondentEmail: system.respondent_email,
        assignee: system.assignee,
        dueAt,
      })),
  );
}

/**
 * Stores the planned tasks in the caller's transaction (the one of the move to `requires_input`), each
 * new one logged on the request; answers how many of the request's tasks are open.
 */
export async function openTasks(
  tx: Queryable,
  privacyRequestId: string,
  tasks: readonly NewTask[],
): Promise<number> {
  const created = await taskRepository.insertTasks(tx, privacyRequestId, tasks);
  await emitTaskEvent(
    tx,
    'task.created',
    created.map((task) => task.id),
  );
  await logRepository.appendLog(
    tx,
    privacyRequestId,
    created.map((task) => ({
      kind: 'note',
      message: `task created: ${task.action} in ${task.system_name}`,
      details: {
        task_id: task.id,
        system: task.system_key,
        action: task.action,
        assignee: task.assignee,
        due_at: task.due_at.toISOString(),
      },
    })),
  );
  return taskRepository.openCount(tx, privacyRequestId);
}
