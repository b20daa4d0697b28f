// Wires Area B into the app: the control panel's routes (under /v1 and its aliases) and the subject data
// API (under /api) share one admin service, so a maintenance switch flipped here is seen at once here.
import type { FastifyInstance } from 'fastify';
import { registerManagementRoutes } from '../http/management.ts';
import type { Services } from '../services.ts';
import { DatastoreAdminService } from '../datastore/admin-service.ts';
import { identityAttributesRoutes } from '../subject-api/identity-attributes-routes.ts';
import { IdentityAttributesService } from '../datastore/identity-attributes-service.ts';
import { datastoreBrowseRoutes } from '../subject-api/browse-routes.ts';
import { DatastoreBrowseService } from '../datastore/browse-service.ts';
import { subjectApiRoutes } from '../subject-api/routes.ts';
import { datastoreManagementRoutes } from '../subject-api/management-routes.ts';
import { SarMailer } from '../mail/access-report-mail.ts';
import { SubjectFiles } from '../datastore/subject-files.ts';
import { SubjectService } from '../datastore/subject-service.ts';

export async function registerSubjectDataArea(app: FastifyInstance, services: Services) {
  const admin = new DatastoreAdminService(services.db, services.keyring);
  const mailer = new SarMailer(services.config);
  const subjects = new SubjectService(services.db, services.keyring, mailer);
  const files = new SubjectFiles(services.db, services.keyring, services.config);
  app.addHook('onClose', async () => mailer.close());
  await registerManagementRoutes(app, datastoreManagementRoutes(admin));
  await registerManagementRoutes(app, identityAttributesRoutes(new IdentityAttributesService(services.db)));
  await registerManagementRoutes(
    app,
    datastoreBrowseRoutes(new DatastoreBrowseService(services.db, services.keyring)),
  );
  await app.register(subjectApiRoutes({ config: services.config, db: services.db, admin, subjects, files }));
}
