// Registers the data subject's side: the privacy center's JSON API under /v1 and /api/v1 (the bare
// /privacy-center is the page), verification and cancel under every management prefix, the outbox, and
// the public pages. One per-address throttle serves every public entry point.
import type { FastifyInstance } from 'fastify';
import { MANAGEMENT_PREFIXES, registerManagementRoutes } from '../http/management.ts';
import { outboxRoutes } from '../outbox/routes.ts';
import { appealPageRoutes, appealRoutes } from '../privacy-center/appeal-routes.ts';
import type { Services } from '../services.ts';
import { agentPageRoutes } from '../privacy-center/confirm-agent-routes.ts';
import { privacyCenterPageRoutes } from '../privacy-center/page-routes.ts';
import { privacyCenterRoutes, subjectRequestRoutes } from '../privacy-center/routes.ts';
import { createPublicThrottle } from '../privacy-center/throttle.ts';

export async function registerPrivacyCenter(app: FastifyInstance, services: Services): Promise<void> {
  const throttle = await createPublicThrottle(app, services.config, services.db);
  for (const prefix of MANAGEMENT_PREFIXES.filter((candidate) => candidate !== '')) {
    await app.register(
      async (scope) => {
        if (prefix !== '/v1') {
          scope.addHook('onRoute', (route) => {
            route.schema = { ...route.schema, hide: true };
          });
        }
        await scope.register(privacyCenterRoutes(services, throttle));
        await scope.register(appealRoutes(services, throttle));
      },
      { prefix },
    );
  }
  await registerManagementRoutes(app, subjectRequestRoutes(services, throttle));
  await registerManagementRoutes(app, outboxRoutes(services));
  await app.register(privacyCenterPageRoutes(services, throttle));
  await app.register(appealPageRoutes(services, throttle));
  await app.register(agentPageRoutes(services, throttle));
}
