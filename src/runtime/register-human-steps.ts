// The human steps (docs/human-steps.md): manual systems and the tasks requests get for them, under the
// management prefixes, a request's notes and attachments, and the respondent's page /respond/{token}.
import type { FastifyInstance } from 'fastify';
import { registerManagementRoutes } from '../http/management.ts';
import { manualSystemRoutes } from '../manual-systems/routes.ts';
import { noteRoutes } from '../notes/routes.ts';
import type { Services } from '../services.ts';
import { respondentRoutes } from '../tasks/respondent-routes.ts';
import { taskRoutes } from '../tasks/routes.ts';

export async function registerHumanSteps(app: FastifyInstance, services: Services): Promise<void> {
  await registerManagementRoutes(app, manualSystemRoutes(services));
  await registerManagementRoutes(app, taskRoutes(services));
  await registerManagementRoutes(app, noteRoutes(services));
  await app.register(respondentRoutes(services));
}
