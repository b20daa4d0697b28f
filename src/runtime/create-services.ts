// The services of one Lethe process, without its listeners: the store opened and migrated, the keys, the
// queue client and the domain services. The operator commands need only this, so it lives apart from
// start.ts, which also loads the HTTP app and the workers (most of a command's start-up time otherwise).
import { AuthService } from '../auth/service.ts';
import type { Config } from '../config.ts';
import { Keyring } from '../crypto/keyring.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { Queue } from '../jobs/queue.ts';
import { Metrics } from '../metrics/metrics.ts';
import { storeReadings } from './store-readings.ts';
import { OperatorService } from '../operators/service.ts';
import { RoleService } from '../operators/role-service.ts';
import { SsoService } from '../sso/service.ts';
import { loadInstallationSecrets } from './data-dir.ts';
import { registerFeatures } from './features.ts';
import type { Services } from '../services.ts';

export async function createServices(config: Config, announce: (message: string) => void): Promise<Services> {
  registerFeatures();
  const secrets = await loadInstallationSecrets(config, announce);
  const db = await openDatabase(config);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  const resolved: Config = {
    ...config,
    encryptionKey: secrets.encryptionKey,
    rootClient: secrets.rootClient,
  };
  const keyring = new Keyring(secrets.encryptionKey);
  const auth = new AuthService(db, secrets.rootClient, keyring, config.accessTokenTtlSeconds);
  const queue = new Queue(config, db);
  const operators = new OperatorService(db, auth, {
    passwordLogin: config.passwordLogin,
    roleMap: config.oidc?.roleMap,
  });
  return {
    config: resolved,
    db,
    keyring,
    auth,
    operators,
    roles: new RoleService(db),
    sso: config.oidc ? new SsoService(db, config.oidc, operators, keyring) : undefined,
    queue,
    metrics: new Metrics(storeReadings(db, queue, config.stuckAfterSeconds)),
  };
}
