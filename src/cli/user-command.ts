// `lethe user create|list|delete`: operator accounts for an operator on the host, through the same
// service (and the same audit entries: the operator `--as` names, acting-operator.ts, else `client:cli`) as
// /v1/user. The password is the first line
// of standard input (a prompt, a pipe or a file), never an argument, where other local users could read
// it in the process list.
import { ROLES } from '../auth/scopes.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { actingOperator } from './acting-operator.ts';
import { formatJson, formatTable } from './output.ts';

export const USER_USAGE = `Usage:
  lethe user create USERNAME --role ROLE [--role ROLE ...] [--email ADDRESS] [--json]
      create an operator account; the password (at least 12 characters) is the first line of standard
      input. Roles: ${ROLES.join(', ')}. --email: their work address, for overdue-task reminders
  lethe user list [--json]
      list operator accounts
  lethe user delete USERNAME
      delete an operator account and revoke its tokens
`;

export type UserCommand =
  | { action: 'create'; username: string; roles: string[]; email?: string; json: boolean }
  | { action: 'list'; json: boolean }
  | { action: 'delete'; username: string };

export function parseUserCommand(argv: string[]): UserCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    { role: { type: 'string', multiple: true }, email: { type: 'string' }, json: { type: 'boolean' } },
    USER_USAGE,
  );
  const [action, ...rest] = positionals;
  const json = values.json ?? false;
  const one = (what: string) => {
    if (rest.length !== 1 || !rest[0]) throw usageError(USER_USAGE, `give exactly one ${what}.`);
    return rest[0];
  };
  switch (action) {
    case 'create': {
      const roles = values.role ?? [];
      if (roles.length === 0) throw usageError(USER_USAGE, `give at least one --role (${ROLES.join(', ')}).`);
      return { action, username: one('username'), roles, email: values.email, json };
    }
    case 'list':
      if (rest.length > 0 || values.role || values.email !== undefined)
        throw usageError(USER_USAGE, 'user list takes only --json.');
      return { action, json };
    case 'delete':
      if (values.role || values.email !== undefined || values.json)
        throw usageError(USER_USAGE, 'user delete takes only a username.');
      return { action, username: one('username') };
    default:
      throw usageError(
        USER_USAGE,
        action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`,
      );
  }
}

export async function runUserCommand(
  services: Pick<Services, 'operators' | 'db'>,
  command: UserCommand,
  readPassword: () => Promise<string>,
  as: string | undefined = undefined,
): Promise<string> {
  const by = (await actingOperator(services, as, command.action === 'list' ? 'user:read' : 'user:*')).change;
  switch (command.action) {
    case 'create': {
      const created = await services.operators.create(by, {
        username: command.username,
        password: await readPassword(),
        roles: command.roles,
        email: command.email,
      });
      return command.json
        ? formatJson(created)
        : `created operator ${created.username} (${created.roles.join(', ')})\n`;
    }
    case 'list': {
      const operators = await services.operators.list();
      if (command.json) return formatJson(operators);
      return formatTable(
        ['username', 'roles', 'created_by', 'created_at'],
        operators.map((operator) => [
          operator.username,
          operator.roles.join(','),
          operator.created_by,
          operator.created_at,
        ]),
      );
    }
    case 'delete':
      await services.operators.remove(by, command.username);
      return `deleted operator ${command.username}\n`;
  }
}
