// Management routes answer under /v1 (documented), /api/v1 and bare (the seed's earlier descriptions).
// The aliases share the handlers and stay out of the OpenAPI document.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';

export const MANAGEMENT_PREFIXES = ['/v1', '/api/v1', ''] as const;

export async function registerManagementRoutes(app: FastifyInstance, routes: FastifyPluginAsync) {
  for (const prefix of MANAGEMENT_PREFIXES) {
    await app.register(
      async (scope) => {
        if (prefix !== '/v1') {
          scope.addHook('onRoute', (route) => {
            route.schema = { ...route.schema, hide: true };
          });
        }
        await scope.register(routes);
      },
      { prefix },
    );
  }
}
