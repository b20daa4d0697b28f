// `lethe task list|complete|skip|assign|invite`: the task inbox for an operator on the host, through the
// same services as /v1/task. Changes are made as the operator `--as` names (acting-operator.ts), else as
// the host's root (`client:cli` in the audit log, `cli` in the request's log). Tables show no task data:
// completing takes it as --data JSON and prints the task without it.
import { inviteRespondent } from '../tasks/respondent.ts';
import { assignTask, completeTask, listTasks, skipTask, type TaskStatus } from '../tasks/service.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { actingOperator } from './acting-operator.ts';
import { formatJson, formatTable } from './output.ts';

const TASK_STATUSES: readonly TaskStatus[] = ['open', 'done', 'skipped', 'canceled'];

export const TASK_USAGE = `Usage:
  lethe task list [--status open|done|skipped|canceled] [--assignee NAME] [--overdue] [--json]
      list tasks, soonest due first
  lethe task complete ID [--data JSON] [--json]
      complete an open task; JSON maps the system's field names to values (access tasks)
  lethe task skip ID --reason TEXT [--json]
      skip an open task, saying why
  lethe task assign ID --to USERNAME|--nobody [--json]
      give the task to an operator, or to nobody
  lethe task invite ID [--email ADDRESS] [--json]
      mail a respondent a link to answer the task (default: its manual system's respondent)

Changes are made as the operator --as USERNAME (or LETHE_OPERATOR) names, with that operator's roles;
without it, as the host's root.
`;

export type TaskCommand =
  | { action: 'list'; status?: TaskStatus; assignee?: string; overdue: boolean; json: boolean }
  | { action: 'complete'; id: string; data?: Record<string, string>; json: boolean }
  | { action: 'skip'; id: string; reason: string; json: boolean }
  | { action: 'assign'; id: string; assignee: string | null; json: boolean }
  | { action: 'invite'; id: string; email?: string; json: boolean };

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
      to: { type: 'string' },
      nobody: { type: 'boolean' },
      email: { type: 'string' },
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
    case 'assign': {
      onlyFor(['to', 'nobody']);
      const id = oneId();
      const to = values.to?.trim();
      if (values.nobody === true) {
        if (to !== undefined) throw usageError(TASK_USAGE, 'give --to USERNAME or --nobody, not both.');
        return { action, id, assignee: null, json };
      }
      if (!to) throw usageError(TASK_USAGE, 'an assignment needs --to USERNAME (or --nobody).');
      return { action, id, assignee: to, json };
    }
    case 'invite': {
      onlyFor(['email']);
      const id = oneId();
      const email = values.email?.trim();
      if (values.email !== undefined && !email) throw usageError(TASK_USAGE, '--email needs an address.');
      return email === undefined ? { action, id, json } : { action, id, email, json };
    }
    default:
      throw usageError(
        TASK_USAGE,
        action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`,
      );
  }
}

export async function runTaskCommand(
  services: Services,
  command: TaskCommand,
  as: string | undefined = undefined,
): Promise<string> {
  switch (command.action) {
    case 'list': {
      await actingOperator(services, as, 'task:read');
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
    case 'assign': {
      const by = await actingOperator(services, as, 'task:update');
      const task = await assignTask(services.db, by.change, command.id, command.assignee);
      return command.json
        ? formatJson(task)
        : `assigned ${task.id} (${task.action} in ${task.system}) to ${task.assignee ?? 'nobody'}\n`;
    }
    case 'invite': {
      const by = await actingOperator(services, as, 'task:update');
      const answer = await inviteRespondent(services, by.change, command.id, command.email);
      return command.json
        ? formatJson(answer)
        : `invited a respondent to task ${command.id}; the link expires at ${answer.expires_at}\n`;
    }
    case 'complete':
    case 'skip': {
      const by = await actingOperator(services, as, 'task:update');
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
