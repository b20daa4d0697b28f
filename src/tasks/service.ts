// Tasks after their creation: listing, completing (access data sealed, an erasure confirmed with who and
// when), skipping with a reason, assigning, and closing the open ones of a canceled request. Each change
// is a line in the request's log, in the transaction of the change. Closing a request's last open task
// moves it from `requires_input` back to `in_processing` and queues its continuation (post-execution
// webhooks, then `complete`) in that same transaction. Changes to one request's tasks are serialised on
// the request's row, so two people closing its last two tasks at once cannot both leave it waiting.
import { emitTaskEvent } from '../events/emit.ts';
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { principalName } from '../auth/scopes.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict, invalid, notFound } from '../errors.ts';
import { assertOperator } from '../manual-systems/service.ts';
import { enqueueAdvance } from '../privacy-requests/jobs.ts';
import { type LogEntry, logRepository } from '../privacy-requests/log-repository.ts';
import { privacyRequestRepository } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { pageOf } from '../validation/page.ts';
import { type TaskFilter, type TaskRow, taskRepository } from './repository.ts';

/** A task's status, as the CLI and the routes name it (the repository's column). */
export type { TaskStatus } from './repository.ts';
import type { TaskView } from './schemas.ts';
import { sealTaskData, type TaskData } from './task-data.ts';

export function toTaskView(row: TaskRow, now = new Date()): TaskView {
  return {
    id: row.id,
    privacy_request_id: row.privacy_request_id,
    system: row.system_key,
    system_name: row.system_name,
    action: row.action,
    status: row.status,
    assignee: row.assignee,
    due_at: row.due_at.toISOString(),
    overdue: row.status === 'open' && row.due_at < now,
    created_at: row.created_at.toISOString(),
    done_at: row.done_at?.toISOString() ?? null,
    done_by: row.done_by,
    skip_reason: row.skip_reason,
    fields: row.fields,
    instructions: row.instructions,
  };
}

export async function listTasks(db: Queryable, filter: TaskFilter, page: number, size: number) {
  const [rows, total] = await Promise.all([
    taskRepository.page(db, filter, size, (page - 1) * size),
    taskRepository.count(db, filter),
  ]);
  return pageOf(
    rows.map((row) => toTaskView(row)),
    total,
    page,
    size,
  );
}

export async function readTask(db: Queryable, id: string): Promise<TaskView> {
  const row = await taskRepository.find(db, id);
  if (!row) throw notFound(`No task with id ${id}.`);
  return toTaskView(row);
}

export async function tasksOfRequest(db: Queryable, privacyRequestId: string): Promise<TaskView[]> {
  if (!(await privacyRequestRepository.find(db, privacyRequestId))) {
    throw notFound(`No privacy request with id ${privacyRequestId}.`);
  }
  const rows = await taskRepository.page(db, { privacyRequestId }, 1000, 0);
  return rows.map((row) => toTaskView(row));
}

/**
 * Who closes a task: an operator or client (by name, with the change's audit origin), or the outside
 * respondent its link went to (no audit origin: the request's log says it was them).
 */
export interface TaskActor {
  name: string;
  respondent?: boolean;
  change?: ChangeActor;
}

type TaskServices = Pick<Services, 'db' | 'keyring' | 'queue'>;

/**
 * Runs `change` on the task in the caller's transaction, locked after its request's row; the task must be
 * open (409 otherwise). Afterwards, with no task of the request left open, the request goes on.
 */
async function changeOpenTask(
  tx: Queryable,
  services: TaskServices,
  by: TaskActor,
  id: string,
  change: (task: TaskRow) => Promise<LogEntry & { details: { status: string } }>,
): Promise<TaskView> {
  const found = await taskRepository.find(tx, id);
  if (!found) throw notFound(`No task with id ${id}.`);
  const request = await privacyRequestRepository.lock(tx, found.privacy_request_id);
  const task = await taskRepository.lock(tx, id);
  if (!request || !task) throw notFound(`No task with id ${id}.`);
  if (task.status === 'canceled')
    throw conflict(
      `The task ${id} was canceled with its privacy request ${request.id} (${request.status}): nobody runs that request any more.`,
    );
  if (task.status !== 'open') throw conflict(`The task ${id} is already ${task.status}.`);
  const entry = await change(task);
  await logRepository.appendLog(tx, request.id, [entry]);
  await emitTaskEvent(tx, 'task.completed', [id]);
  if (by.change) {
    await recordChange(tx, by.change, `task.${entry.details.status === 'done' ? 'complete' : 'skip'}`, {
      task_id: id,
      privacy_request_id: request.id,
      system: task.system_key,
    });
  }
  if (request.status === 'requires_input' && (await taskRepository.openCount(tx, request.id)) === 0) {
    await privacyRequestRepository.transition(tx, {
      id: request.id,
      from: 'requires_input',
      to: 'in_processing',
      message: 'every task done: the request goes on',
    });
    await enqueueAdvance(services.queue, tx, request.id);
  }
  return toTaskView((await taskRepository.find(tx, id)) as TaskRow);
}

/** The data's names must all be fields of the task's system (422 naming those that are not). */
function checkData(task: TaskRow, data: TaskData): void {
  const known = new Set(task.fields.map((field) => field.name));
  const unknown = Object.keys(data).filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw invalid(
      `data: unknown field(s) ${unknown.join(', ')}; the task asks for ${[...known].join(', ')}.`,
    );
  }
}

export async function completeTask(
  services: TaskServices,
  by: TaskActor,
  id: string,
  data: TaskData | undefined,
): Promise<TaskView> {
  return services.db.transaction((tx) => completeTaskIn(tx, services, by, id, data));
}

/** `completeTask` in the caller's transaction (a respondent's answer also spends their link in it). */
export async function completeTaskIn(
  tx: Queryable,
  services: TaskServices,
  by: TaskActor,
  id: string,
  data: TaskData | undefined,
): Promise<TaskView> {
  return changeOpenTask(tx, services, by, id, async (task) => {
    if (data) checkData(task, data);
    const given = task.action === 'access' && data && Object.keys(data).length > 0;
    await taskRepository.close(tx, id, {
      status: 'done',
      doneBy: by.name,
      ...(given ? { dataSealed: sealTaskData(services.keyring, id, data) } : {}),
    });
    return {
      kind: 'note',
      message:
        task.action === 'erasure'
          ? `erasure in ${task.system_name} confirmed by ${by.respondent ? 'the respondent' : by.name}`
          : `access task in ${task.system_name} done by ${by.respondent ? 'the respondent' : by.name}`,
      details: {
        task_id: id,
        system: task.system_key,
        action: task.action,
        status: 'done',
        done_by: by.name,
        by_respondent: by.respondent === true,
        fields_given: given ? Object.keys(data) : [],
      },
    };
  });
}

export async function skipTask(
  services: TaskServices,
  by: TaskActor,
  id: string,
  reason: string,
): Promise<TaskView> {
  return services.db.transaction((tx) =>
    changeOpenTask(tx, services, by, id, async (task) => {
      await taskRepository.close(tx, id, { status: 'skipped', doneBy: by.name, skipReason: reason });
      return {
        kind: 'note',
        message: `${task.action} task in ${task.system_name} skipped by ${by.name}: ${reason}`,
        details: {
          task_id: id,
          system: task.system_key,
          action: task.action,
          status: 'skipped',
          done_by: by.name,
        },
      };
    }),
  );
}

/**
 * Closes the open tasks of a request that ended unanswered (canceled), in the caller's transaction, which
 * moves the request: they leave the inbox, the overdue and stuck counts and the reminders, and can no
 * longer be completed. One line of the request's log names them.
 */
export async function cancelTasksOf(tx: Queryable, privacyRequestId: string, by: string): Promise<void> {
  const canceled = await taskRepository.cancelOpen(tx, privacyRequestId, by);
  if (canceled.length === 0) return;
  await logRepository.appendLog(tx, privacyRequestId, [
    {
      kind: 'note',
      message: `${canceled.length} open task(s) canceled with the request: ${canceled
        .map((task) => `${task.action} in ${task.system_name}`)
        .join(', ')}`,
      details: { status: 'canceled', task_ids: canceled.map((task) => task.id), done_by: by },
    },
  ]);
}

export async function assignTask(db: Database, by: ChangeActor, id: string, assignee: string | null) {
  await assertOperator(db, assignee);
  return db.transaction(async (tx) => {
    const before = await taskRepository.lock(tx, id);
    if (!before) throw notFound(`No task with id ${id}.`);
    const row = (await taskRepository.assign(tx, id, assignee)) as TaskRow;
    if (assignee !== null && assignee !== before.assignee) await emitTaskEvent(tx, 'task.assigned', [id]);
    await logRepository.appendLog(tx, row.privacy_request_id, [
      {
        kind: 'note',
        message: `${row.action} task in ${row.system_name} assigned to ${assignee ?? 'nobody'} by ${principalName(by.principal)}`,
        details: { task_id: id, system: row.system_key, from: before.assignee, to: assignee },
      },
    ]);
    await recordChange(tx, by, 'task.assign', {
      task_id: id,
      privacy_request_id: row.privacy_request_id,
      assignee,
    });
    return toTaskView(row);
  });
}
