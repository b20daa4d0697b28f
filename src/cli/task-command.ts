// `lethe task list|complete|skip`: the task inbox for an operator on the host, through the same service as
// /v1/task (changes are audited with the actor `client:cli` and logged on the request as by `cli`).
// Tables show no task data: completing takes it as --data JSON and prints the task without it.
import { completeTask, listTasks, skipTask, type TaskStatus } from '../tasks/service.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { cliActor, formatJson, formatTable } from './output.ts';

const TASK_STATUSES: readonly TaskStatus[] = ['open', 'done', 'skipped', 'canceled'];

export const TASK_USAGE = `Usage:
  lethe task list [--status open|done|skipped|canceled] [--assignee NAME] [--overdue] [--json]
      list tasks, soonest due first
  lethe task complete ID [--data JSON] [--json]
      complete an open task; JSON maps the system's field names to values (access tasks)
  lethe task skip ID --reason TEXT [--json]
      skip an open task, saying why
`;

export type TaskCommand =
  | { action: 'list'; status?: TaskStatus; assignee?: string; overdue: boolean; json: boolean }
  | { action: 'complete'; id: string; data?: Record<string, string>; json: boolean }
  | { action: 'skip'; id: string; reason: string; json: boolean };

function parseData(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw usageError(TASK_USAGE, '--data must be a JSON object.');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    Object.values(parsed).some((value) => typeof value !== 'string')
  ) {
    throw usageError(TASK_USAGE, '--data must be a JSON object of text values.');
  }
  return parsed as Record<string, string>;
}

export function parseTaskCommand(argv: string[]): TaskCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    {
      status: { type: 'string' },
      assignee: { type: 'string' },
      overdue: { type: 'boolean' },
      data: { type: 'string' },
      reason: { type: 'string' },
      json: { type: 'boolean' },
    },
    TASK_USAGE,
  );
  const [action, ...ids] = positionals;
  const json = values.json ?? false;
  const onlyFor = (allowed: string[]) => {
    const misplaced = Object.keys(values).find((option) => option !== 'json' && !allowed.includes(option));
    if (misplaced) throw usageError(TASK_USAGE, `--${misplaced} is not an option of task ${action}.`);
  };
  const oneId = () => {
    if (ids.length !== 1 || !ids[0]) throw usageError(TASK_USAGE, 'give exactly one task id.');
    return ids[0];
  };
  switch (action) {
    case 'list': {
      onlyFor(['status', 'assignee', 'overdue']);
      if (ids.length > 0) throw usageError(TASK_USAGE, `unexpected argument ${JSON.stringify(ids[0])}.`);
      const status = values.status;
      if (status !== undefined && !(TASK_STATUSES as readonly string[]).includes(status)) {
        throw usageError(TASK_USAGE, `--status must be one of ${TASK_STATUSES.join(', ')}.`);
      }
      return {
        action,
        status: status as TaskStatus | undefined,
        assignee: values.assignee,
        overdue: values.overdue ?? false,
        json,
      };
    }
    case 'complete': {
      onlyFor(['data']);
      const id = oneId();
      return values.data === undefined
        ? { action, id, json }
        : { action, id, data: parseData(values.data), json };
    }
    case 'skip': {
      onlyFor(['reason']);
      const id = oneId();
      const reason = values.reason?.trim();
      if (!reason) throw usageError(TASK_USAGE, 'a skip needs --reason.');
      return { action, id, reason, json };
    }
    default:
      throw usageError(
        TASK_USAGE,
        action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`,
      );
  }
}

export async function runTaskCommand(services: Services, command: TaskCommand): Promise<string> {
  switch (command.action) {
    case 'list': {
      const page = await listTasks(
        services.db,
        { status: command.status, assignee: command.assignee, overdue: command.overdue },
        1,
        1000,
      );
      if (command.json) return formatJson(page);
      const table = formatTable(
        ['id', 'request', 'system', 'action', 'status', 'assignee', 'due_at'],
        page.items.map((task) => [
          task.id,
          task.privacy_request_id,
          task.system,
          task.action,
          task.overdue ? 'open (overdue)' : task.status,
          task.assignee,
          task.due_at,
        ]),
      );
      return `${table}${page.items.length} of ${page.total}\n`;
    }
    case 'complete':
    case 'skip': {
      const by = { name: 'cli', change: cliActor() };
      const task =
        command.action === 'complete'
          ? await completeTask(services, by, command.id, command.data)
          : await skipTask(services, by, command.id, command.reason);
      return command.json
        ? formatJson(task)
        : `${task.status} ${task.id} (${task.action} in ${task.system})\n`;
    }
  }
}
