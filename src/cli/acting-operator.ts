// Who a CLI command acts as. On the host a command has the store itself, so by default it acts as the
// host's root (`cli` in the request log, `client:cli` in the audit log). `--as USERNAME` (or
// LETHE_OPERATOR) names the operator whose credentials run it instead: the operator must exist, the
// command needs the scope its API route needs, granted by the operator's roles, and the request log and
// the audit log name that operator (`user:<name>`), as after a sign-in to the console.
import { randomUUID } from 'node:crypto';
import type { ChangeActor } from '../audit/audit-log.ts';
import { grants, type Scope } from '../auth/scopes.ts';
import { scopesOfRoles } from '../operators/role-service.ts';
import type { Services } from '../services.ts';
import { cliActor } from './output.ts';

/** The operator a command runs as: the name logs use, and the actor the services audit. */
export interface ActingOperator {
  name: string;
  change: ChangeActor;
}

/** A command refused before it changed anything (exit status 2, the message on stderr). */
export class OperatorRefused extends Error {
  override name = 'OperatorRefused';
}

/** Takes `--as NAME` and `--as=NAME` out of the command line; falls back to LETHE_OPERATOR. */
export function takeActingOperator(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): { as: string | undefined; flagged: boolean; rest: string[] } {
  const rest: string[] = [];
  let as: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] as string;
    if (arg === '--as') {
      as = argv[index + 1];
      if (as === undefined || as.startsWith('-'))
        throw new OperatorRefused('--as needs an operator username.');
      index++;
    } else if (arg.startsWith('--as=')) {
      as = arg.slice('--as='.length);
    } else {
      rest.push(arg);
    }
  }
  const flagged = as !== undefined;
  as ??= env.LETHE_OPERATOR || undefined;
  if (as !== undefined && as.trim() === '') throw new OperatorRefused('--as needs an operator username.');
  return { as, flagged, rest };
}

/** The actor for a command needing `scope`: the root of the host, or the operator named, if allowed. */
export async function actingOperator(
  services: Pick<Services, 'operators' | 'db'>,
  username: string | undefined,
  scope: Scope,
): Promise<ActingOperator> {
  if (username === undefined) return { name: 'cli', change: cliActor() };
  const operator = (await services.operators.list()).find((candidate) => candidate.username === username);
  if (!operator) throw new OperatorRefused(`--as: no operator named ${JSON.stringify(username)}.`);
  const scopes = await scopesOfRoles(services.db, operator.roles);
  if (!grants(scopes, scope)) {
    throw new OperatorRefused(
      `--as: the operator ${JSON.stringify(username)} (${operator.roles.join(', ')}) may not do this: it needs ${scope}.`,
    );
  }
  return {
    name: username,
    change: {
      principal: { clientId: `user:${username}`, username, scopes, actsFor: `user:${username}` },
      requestId: `cli-${randomUUID()}`,
    },
  };
}
