// What the HTTP routes and the workers share: configuration, the store, the keys and the domain services.
import type { AuthService } from './auth/service.ts';
import type { Config } from './config.ts';
import type { Keyring } from './crypto/keyring.ts';
import type { Database } from './db/database.ts';
import type { Queue } from './jobs/queue.ts';
import type { OperatorService } from './operators/service.ts';
import type { RoleService } from './operators/role-service.ts';
import type { SsoService } from './sso/service.ts';
import type { Metrics } from './metrics/metrics.ts';

export interface Services {
  config: Config;
  db: Database;
  keyring: Keyring;
  auth: AuthService;
  operators: OperatorService;
  roles: RoleService;
  /** OpenID Connect sign-in; undefined unless LETHE_OIDC_ISSUER is set. */
  sso: SsoService | undefined;
  queue: Queue;
  /** This process's Prometheus instruments (GET /metrics). */
  metrics: Metrics;
}
