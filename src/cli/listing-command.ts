// `lethe policy list` and `lethe connection list`: what GET /v1/dsr/policy and GET /v1/connection answer,
// as a table or `--json`. Connections show their masks, never a secret (the service has no other view).
import { ConnectionService } from '../connections/service.ts';
import { PolicyService } from '../policies/service.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { formatJson, formatTable } from './output.ts';

export const POLICY_USAGE = `Usage:
  lethe policy list [--json]
      list DSR policies with their rules
`;

export const CONNECTION_USAGE = `Usage:
  lethe connection list [--json]
      list connections (secrets masked)
`;

/** Every policy and connection fits one page of this size; the tables are operator-sized. */
const PAGE_SIZE = 1000;

export function parseListCommand(argv: string[], usage: string): { json: boolean } {
  const { values, positionals } = parseCommandArguments(argv, { json: { type: 'boolean' } }, usage);
  const [action, ...rest] = positionals;
  if (action !== 'list') {
    throw usageError(
      usage,
      action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`,
    );
  }
  if (rest.length > 0) throw usageError(usage, `unexpected argument ${JSON.stringify(rest[0])}.`);
  return { json: values.json ?? false };
}

export async function runPolicyList(services: Services, json: boolean): Promise<string> {
  const page = await new PolicyService(services).list(1, PAGE_SIZE);
  if (json) return formatJson(page);
  return formatTable(
    ['key', 'name', 'action', 'rules', 'timeframe_days'],
    page.items.map((policy) => [
      policy.key,
      policy.name,
      policy.drp_action,
      policy.rules.map((rule) => `${rule.key}:${rule.action_type}`).join(','),
      policy.execution_timeframe,
    ]),
  );
}

export async function runConnectionList(services: Services, json: boolean): Promise<string> {
  const page = await new ConnectionService(services).list(1, PAGE_SIZE);
  if (json) return formatJson(page);
  return formatTable(
    ['key', 'name', 'type', 'url', 'oauth', 'webhooks_using'],
    page.items.map((connection) => [
      connection.key,
      connection.name,
      connection.connection_type,
      connection.secrets?.url,
      connection.oauth ? 'yes' : 'no',
      connection.webhooks_using,
    ]),
  );
}
