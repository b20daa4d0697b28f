// `lethe api-key create --name N --datastore D [--datastore D2 | --datastore '*'] [--rate-limit N]`:
// issues an API key from the command line (an operator on the host needs no management token) and
// prints it once, as JSON. Audited like a key issued through the API, with the actor `client:cli`.
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ConfigError } from '../config.ts';
import type { Services } from '../runtime/services.ts';
import { DatastoreAdminService } from './admin-service.ts';
import { DATASTORE_NAME } from './api-keys.ts';

export const API_KEY_USAGE = `Usage: lethe api-key create --name NAME --datastore NAME [--datastore NAME | --datastore '*'] [--rate-limit N]
`;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      name: { type: 'string' },
      datastore: { type: 'string', multiple: true },
      'rate-limit': { type: 'string' },
    },
  });
}

export async function runApiKeyCommand(
  services: Pick<Services, 'db' | 'keyring'>,
  argv: string[],
): Promise<string> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new ConfigError(`lethe api-key: ${(error as Error).message}\n${API_KEY_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (positionals.join(' ') !== 'create') throw new ConfigError(API_KEY_USAGE.trim());
  const name = values.name?.trim();
  if (!name) throw new ConfigError('lethe api-key create: --name is required.');
  const datastores = values.datastore ?? [];
  const pattern = new RegExp(DATASTORE_NAME);
  if (datastores.length === 0 || datastores.some((store) => store !== '*' && !pattern.test(store))) {
    throw new ConfigError(
      'lethe api-key create: give at least one --datastore, each a datastore name (lower-case letters, digits, _ and -) or *.',
    );
  }
  const rateLimit = values['rate-limit'];
  if (rateLimit !== undefined && !/^[1-9]\d{0,6}$/.test(rateLimit)) {
    throw new ConfigError(
      'lethe api-key create: --rate-limit must be a whole number of requests a minute (1 or more).',
    );
  }
  const admin = new DatastoreAdminService(services.db, services.keyring);
  const issued = await admin.issueKey(
    { clientId: 'cli', scopes: ['api-key:*'], isRoot: true },
    { name, datastores, ...(rateLimit ? { rate_limit_per_minute: Number(rateLimit) } : {}) },
    `cli-${randomUUID()}`,
  );
  return `${JSON.stringify(issued, null, 2)}\n`;
}
