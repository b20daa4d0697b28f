// `lethe datastore create|list|identities`: the control panel's datastore actions for an operator on the
// host (direct store access), through the same services as `POST/GET /v1/datastore` and
// `GET|PUT /v1/datastore/{name}/identities`; changes are audited with the actor `client:cli`.
import { randomUUID } from 'node:crypto';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { DatastoreAdminService } from '../datastore/admin-service.ts';
import { IdentityAttributesService } from '../datastore/identity-attributes-service.ts';
import { CLI_PRINCIPAL } from './api-key-command.ts';
import { DATASTORE_NAME } from '../api-keys/keys.ts';
import { formatJson, formatTable } from './output.ts';

export const DATASTORE_USAGE = `Usage:
  lethe datastore create NAME [--description TEXT]
      create a datastore (NAME: lower-case letters, digits, _ and -, at most 63) and print it (JSON)
  lethe datastore list [--json]
      list datastores (a table, or JSON with --json)
  lethe datastore identities NAME [--set JSON]
      print which attributes hold which identity kind (JSON; "declared": false is the default), or
      declare them: --set '{"email": ["user.email"], "phone_number": ["user.phone"]}' ('{}': the default)
`;

const MAX_DESCRIPTION = 1000;

export type DatastoreCommand =
  | { action: 'create'; name: string; description: string | undefined }
  | { action: 'list'; json: boolean }
  | { action: 'identities'; name: string; declaration: unknown };

const usage = (problem: string) => usageError(DATASTORE_USAGE, problem);

export function parseDatastoreCommand(argv: string[]): DatastoreCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    { description: { type: 'string' }, set: { type: 'string' }, json: { type: 'boolean' } },
    DATASTORE_USAGE,
  );
  const [action, ...rest] = positionals;
  if (action !== 'identities' && values.set !== undefined)
    throw usage('--set is an option of datastore identities.');
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
    case 'identities': {
      const [name, extra] = rest;
      if (name === undefined) throw usage('give the name of the datastore.');
      if (extra !== undefined) throw usage(`unexpected argument ${JSON.stringify(extra)}.`);
      if (values.description !== undefined) throw usage('--description is an option of datastore create.');
      let declaration: unknown;
      if (values.set !== undefined) {
        try {
          declaration = JSON.parse(values.set);
        } catch {
          throw usage('--set must be a JSON object such as {"email": ["user.email"]}.');
        }
      }
      return { action, name, declaration };
    }
    default:
      throw usage(action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`);
  }
}

export async function runDatastoreCommand(
  services: Pick<Services, 'db' | 'keyring'>,
  command: DatastoreCommand,
): Promise<string> {
  if (command.action === 'identities') {
    const identities = new IdentityAttributesService(services.db);
    const answer =
      command.declaration === undefined
        ? await identities.read(command.name)
        : await identities.declare(CLI_PRINCIPAL, command.name, command.declaration, {
            requestId: `cli-${randomUUID()}`,
          });
    return `${JSON.stringify(answer, null, 2)}\n`;
  }
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
