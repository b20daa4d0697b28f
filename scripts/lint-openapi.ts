// Lints the OpenAPI document Lethe serves at /openapi.json with Redocly's recommended rules, failing on
// any error or warning (DECISIONS.md: "An API a client generator can trust"). Run by `npm run lint`.
//
// The document is built the way the server builds it (buildApp, then app.swagger()), with no listening
// server and no database: building the app opens no connection (the pool connects at its first query),
// so the check runs on a fresh clone after `npm ci`, offline. Redocly's recommended ruleset ships inside
// @redocly/openapi-core; nothing is fetched at run time.
import { randomBytes } from 'node:crypto';
import { BaseResolver, createConfig, lintDocument, Source } from '@redocly/openapi-core';
import { AuthService } from '../src/auth/service.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { Keyring } from '../src/crypto/keyring.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { Queue } from '../src/jobs/queue.ts';
import { Metrics } from '../src/metrics/metrics.ts';
import { storeReadings } from '../src/runtime/store-readings.ts';
import { RoleService } from '../src/operators/role-service.ts';
import { OperatorService } from '../src/operators/service.ts';
import { buildApp } from '../src/runtime/app.ts';
import { registerFeatures } from '../src/runtime/features.ts';

/** The served document of a default installation (no LETHE_PUBLIC_URL: servers stays relative). */
async function servedDocument(): Promise<unknown> {
  const encryptionKey = randomBytes(32);
  const rootClient = { id: 'lint-client', secret: randomBytes(24).toString('base64url') };
  const config: Config = {
    ...loadConfig({}),
    // Never reached: nothing queries while the document is built.
    databaseUrl: 'postgres://lint@127.0.0.1:1/lint',
    encryptionKey,
    rootClient,
    logLevel: 'silent',
  };
  const db = await openPostgres(config.databaseUrl as string, { kind: 'postgres' });
  const keyring = new Keyring(encryptionKey);
  const auth = new AuthService(db, rootClient, keyring, config.accessTokenTtlSeconds);
  const queue = new Queue(config, db);
  const services = {
    config,
    db,
    keyring,
    auth,
    operators: new OperatorService(db, auth),
    roles: new RoleService(db),
    sso: undefined,
    queue,
    metrics: new Metrics(storeReadings(db, queue, config.stuckAfterSeconds)),
  };
  registerFeatures();
  const app = await buildApp(services, { logger: false });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await db.close();
  }
}

const document = await servedDocument();
const config = await createConfig({ extends: ['recommended'] });
const problems = await lintDocument({
  document: {
    source: new Source('/openapi.json', JSON.stringify(document, null, 2)),
    parsed: document,
  },
  config,
  externalRefResolver: new BaseResolver(),
});
for (const problem of problems) {
  const where = problem.location.map((location) => location.pointer).join(', ');
  process.stderr.write(`${problem.severity} ${problem.ruleId}: ${problem.message} (${where})\n`);
}
if (problems.length > 0) {
  process.stderr.write(`openapi.json: ${problems.length} problem(s) under Redocly's recommended rules\n`);
  process.exit(1);
}
process.stdout.write("openapi.json passes Redocly's recommended rules\n");
