// `lethe datastore create|list`: the control panel's datastore actions for an operator on the host
// (direct store access), through the same admin service as `POST/GET /v1/datastore`; creation is
// audited with the actor `client:cli`.
import { randomUUID } from 'node:crypto';
import type { Services } from '../runtime/services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { DatastoreAdminService } from '../datastore/admin-service.ts';
import { CLI_PRINCIPAL } from './api-key-command.ts';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import { formatJson, formatTable } from './output.ts';

export const DATASTORE_USAGE = `Usage:
  lethe datastore create NAME [--description TEXT]
      create a datastore (NAME: lower-case letters, digits, _ and -, at most 63) and print it (JSON)
  lethe datastore list [--json]
      list datastores (a table, or JSON with --json)
`;

const MAX_DESCRIPTION = 1000;

export type DatastoreCommand =
  { action: 'create'; name: string; description: string | undefined } | { action: 'list'; json: boolean };

const usage = (problem: string) => usageError(DATASTORE_USAGE, problem);

export function parseDatastoreCommand(argv: string[]): DatastoreCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    { description: { type: 'string' }, json: { type: 'boolean' } },
    DATASTORE_USAGE,
  );
  const [action, ...rest] = positionals;
  switch (action) {
    case 'create': {
      if (values.json !== undefined) throw usage('--json is an option of datastore list.');
      const [name, extra] = rest;
      if (name === undefined) throw usage('give the name of the datastore to create.');
      if (extra !== undefined) throw usage(`unexpected argument ${JSON.stringify(extra)}.`);
      if (!new RegExp(DATASTORE_NAME).test(name)) {
        throw usage(
          `${JSON.stringify(name.slice(0, 100))} is not a datastore name: use lower-case letters, digits, _ and - (at most 63, starting with a letter or digit).`,
        );
      }
      if (values.description !== undefined && values.description.length > MAX_DESCRIPTION) {
        throw usage(`--description is longer than ${MAX_DESCRIPTION} characters.`);
      }
      return { action, name, description: values.description };
    }
    case 'list':
      if (values.description !== undefined) throw usage('--description is an option of datastore create.');
      if (rest.length > 0) throw usage(`unexpected argument ${JSON.stringify(rest[0])}.`);
      return { action, json: values.json ?? false };
    default:
      throw usage(action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`);
  }
}

export async function runDatastoreCommand(
  services: Pick<Services, 'db' | 'keyring'>,
  command: DatastoreCommand,
): Promise<string> {
  const admin = new DatastoreAdminService(services.db, services.keyring);
  if (command.action === 'list') {
    const datastores = await admin.listDatastores();
    if (command.json) return formatJson(datastores);
    return formatTable(
      ['name', 'description', 'created_at'],
      datastores.map((store) => [store.name, store.description, store.created_at]),
    );
  }
  const created = await admin.createDatastore(
    CLI_PRINCIPAL,
    {
      name: command.name,
      ...(command.description === undefined ? {} : { description: command.description }),
    },
    { requestId: `cli-${randomUUID()}` },
  );
  return `${JSON.stringify(created, null, 2)}\n`;
}
