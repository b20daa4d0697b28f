// `lethe api-key create|list|revoke`: the control panel's API-key actions for an operator on the host
// (direct store access, no management token needed). Each change is audited like the API's, with the
// actor `client:cli`. A key's secret is printed once, by `create`; `list` never shows it nor its digest.
import { randomUUID } from 'node:crypto';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { DatastoreAdminService } from '../datastore/admin-service.ts';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import { formatJson, formatTable } from './output.ts';

export const API_KEY_USAGE = `Usage:
  lethe api-key create --name NAME --datastore NAME [--datastore NAME | --datastore '*'] [--rate-limit N]
      issue an API key for the subject data API and print it once (JSON)
  lethe api-key list [--json]
      list API keys, a table or JSON with --json (never their secrets)
  lethe api-key revoke ID
      revoke the key with this id (the "id" of create and list); its next call is refused
`;

export const CLI_PRINCIPAL = { clientId: 'cli', scopes: ['api-key:*', 'datastore:*'], actsFor: 'client:cli' };

export type ApiKeyCommand =
  | { action: 'create'; name: string; datastores: string[]; rateLimit: number | undefined }
  | { action: 'list'; json: boolean }
  | { action: 'revoke'; id: string };

const usage = (problem: string) => usageError(API_KEY_USAGE, problem);

/** Reads the arguments after `api-key`; a bad one is a ConfigError carrying the usage text. */
export function parseApiKeyCommand(argv: string[]): ApiKeyCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    {
      name: { type: 'string' },
      datastore: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
      json: { type: 'boolean' },
    },
    API_KEY_USAGE,
  );
  const [action, ...rest] = positionals;
  const onlyFor = (allowed: string[]) => {
    const misplaced = Object.keys(values).find((option) => !allowed.includes(option));
    if (misplaced) throw usage(`--${misplaced} is not an option of api-key ${action}.`);
  };
  switch (action) {
    case 'create': {
      if (values.json !== undefined) throw usage('--json is an option of api-key list.');
      if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}.`);
      const name = values.name?.trim();
      if (!name) throw usage('--name is required.');
      const datastores = values.datastore ?? [];
      const pattern = new RegExp(DATASTORE_NAME);
      if (datastores.length === 0 || datastores.some((store) => store !== '*' && !pattern.test(store))) {
        throw usage(
          'give at least one --datastore, each a datastore name (lower-case letters, digits, _ and -) or *.',
        );
      }
      const rateLimit = values['rate-limit'];
      if (rateLimit !== undefined && !/^[1-9]\d{0,6}$/.test(rateLimit)) {
        throw usage('--rate-limit must be a whole number of requests a minute (1 or more).');
      }
      return { action, name, datastores, rateLimit: rateLimit === undefined ? undefined : Number(rateLimit) };
    }
    case 'list':
      onlyFor(['json']);
      if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}.`);
      return { action, json: values.json ?? false };
    case 'revoke': {
      onlyFor([]);
      if (rest.length !== 1 || !rest[0]) throw usage('give exactly one key id to revoke.');
      return { action, id: rest[0] };
    }
    default:
      throw usage(action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`);
  }
}

/** Carries out the command; answers what to print on stdout. */
export async function runApiKeyCommand(
  services: Pick<Services, 'db' | 'keyring'>,
  command: ApiKeyCommand,
): Promise<string> {
  const admin = new DatastoreAdminService(services.db, services.keyring);
  const origin = { requestId: `cli-${randomUUID()}` };
  switch (command.action) {
    case 'create': {
      const issued = await admin.issueKey(
        CLI_PRINCIPAL,
        {
          name: command.name,
          datastores: command.datastores,
          ...(command.rateLimit ? { rate_limit_per_minute: command.rateLimit } : {}),
        },
        origin,
      );
      return `${JSON.stringify(issued, null, 2)}\n`;
    }
    case 'list': {
      const keys = await admin.listKeys();
      if (command.json) return formatJson(keys);
      return formatTable(
        ['id', 'name', 'datastores', 'rate_limit_per_minute', 'created_at'],
        keys.map((key) => [
          key.id,
          key.name,
          key.datastores.join(','),
          key.rate_limit_per_minute,
          key.created_at,
        ]),
      );
    }
    case 'revoke':
      await admin.revokeKey(CLI_PRINCIPAL, command.id, origin);
      return `revoked API key ${command.id}\n`;
  }
}
