// The app factory: shared plugins first, then each domain's routes. Entry points only build and listen;
// tests build the same app.
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import Fastify, { type FastifyInstance, type FastifyRequest, LogController } from 'fastify';
import { authRoutes } from '../auth/routes.ts';
import { agentRoutes } from '../agents/routes.ts';
import { connectionRoutes } from '../connections/routes.ts';
import { consentRoutes } from '../consent/routes.ts';
import { jurisdictionRoutes } from '../deadlines/routes.ts';
import { reportRoutes } from '../reports/routes.ts';
import { correctionRoutes } from '../corrections/routes.ts';
import { disclosureRoutes } from '../disclosure/routes.ts';
import { erasurePreviewRoutes } from '../erasure-preview/routes.ts';
import { consoleRoutes } from '../console/routes.ts';
import { registerSubjectDataArea } from './register-subject-data.ts';
import { registerHumanSteps } from './register-human-steps.ts';
import { FIDES_PREFIX, fidesCompatRoutes } from '../fides-compat/routes.ts';
import { healthRoutes } from '../health/routes.ts';
import { operatorRoutes } from '../operators/routes.ts';
import { roleRoutes } from '../operators/role-routes.ts';
import { ssoRoutes } from '../sso/routes.ts';
import { publicBaseUrl } from '../privacy-center-settings/public-url.ts';
import { metricsRoutes } from '../metrics/routes.ts';
import { policyRoutes } from '../policies/routes.ts';
import { registerPrivacyCenter } from './register-privacy-center.ts';
import { privacyRequestRoutes } from '../privacy-requests/routes.ts';
import type { Services } from '../services.ts';
import { webhookRoutes } from '../webhooks/routes.ts';
import { eventSubscriptionRoutes } from '../events/routes.ts';
import { registerAddressThrottle } from '../rate-limits/address-throttle.ts';
import { unavailable } from '../errors.ts';
import { authorizePlugin } from '../http/authorize.ts';
import { answerError, answerFrameworkError } from '../http/error-handler.ts';
import { registerManagementRoutes } from '../http/management.ts';
import { registerOpenApi } from '../http/openapi/register.ts';
import { acceptEmptyJsonBodies } from '../http/json-body.ts';
import { SchemasCompiledOnFirstUse } from '../http/compile-on-first-use.ts';
import { compileValidator } from '../http/validation.ts';
import { terminalLogStream } from '../http/log-format.ts';

/**
 * What the request log says of a request: its method and path, never the query string (Area B takes
 * personal values there) or a body; nor headers, which carry secrets.
 */
function requestLogFields(request: FastifyRequest) {
  return {
    method: request.method,
    url: request.url.split('?')[0],
    remoteAddress: request.ip,
  };
}

/** false: no logging; a stream: every log line goes there (tests read them); default: stdout at the config's level. */
export type LoggerOption = boolean | { level: string; stream: { write(line: string): void } };

export async function buildApp(
  services: Services,
  options: { logger?: LoggerOption } = {},
): Promise<FastifyInstance> {
  const schemas = new SchemasCompiledOnFirstUse();
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            ...(typeof options.logger === 'object'
              ? options.logger
              : { level: services.config.logLevel, ...terminalLogStream() }),
            serializers: { req: requestLogFields },
          },
    // One line per request, at debug level (the default level, info, keeps them out): /health probes and
    // scrapes every few seconds would otherwise bury what matters. Written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // X-Forwarded-For is believed only from the proxies LETHE_TRUST_PROXY lists (proxy-addr walks the
    // chain back to the first address not listed); otherwise a client could pick its own address.
    trustProxy: services.config.trustProxy.length > 0 ? services.config.trustProxy : false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Fastify's own 503 while closing answers {error, message, statusCode}; the hook below answers it as
    // {"detail"} instead, like every other error.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The router's own refusals (a malformed percent-encoding, a path parameter over 100 characters)
    // answer {"detail"} like every other error, not Fastify's {error, code, message, statusCode}.
    frameworkErrors: answerFrameworkError,
    schemaController: { compilersFactory: { buildSerializer: schemas.serializers } },
  });
  // Area B endpoints take GET with a body too (the seed writes their request lines as GET with bodies);
  // a GET without a body is handled exactly as before.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  acceptEmptyJsonBodies(app);
  app.setValidatorCompiler(schemas.validators(compileValidator));
  app.decorate('compileAllSchemas', () => schemas.compileAll());
  app.setErrorHandler(answerError);
  const noRoute = (request: FastifyRequest) =>
    Object.assign(new Error(`No route ${request.method} ${request.url.split('?')[0]}.`), { statusCode: 404 });
  app.setNotFoundHandler((request, reply) => answerError(noRoute(request), request, reply));
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      reply.header('retry-after', '5');
      throw unavailable('The service is shutting down; try again shortly.');
    }
    // The router takes `/v1/privacy-request/` as `/v1/privacy-request/:id` with an empty id: that path
    // names nothing, so it answers the not-found handler's 404, before any credential or schema check
    // (which would answer 401 or 422). A wildcard (`*`, the console's files) may be empty.
    const params = request.params as Record<string, string> | undefined;
    if (params && Object.entries(params).some(([name, value]) => name !== '*' && value === '')) {
      throw noRoute(request);
    }
    // Answers carrying personal data or a secret must not be stored by a browser or proxy. Rather than
    // trust each route to say so, every answer is no-store; the console's static files set their own
    // caching (src/console/routes.ts), nothing else does.
    reply.header('cache-control', 'no-store');
  });
  // Labelled by the route's pattern, never the URL: ids and names in paths would make a series apiece.
  app.addHook('onResponse', async (request, reply) => {
    request.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    services.metrics.observeHttpRequest(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  await app.register(helmet, { contentSecurityPolicy: false });
  await app.register(formbody);
  await registerOpenApi(app, services.config);

  await app.register(authorizePlugin, { auth: services.auth });
  await registerAddressThrottle(app, services.config, services.db);
  await app.register(healthRoutes(services));
  await app.register(metricsRoutes(services));
  await registerManagementRoutes(app, authRoutes(services));
  await registerManagementRoutes(app, operatorRoutes(services.operators));
  await registerManagementRoutes(app, roleRoutes(services.roles));
  await app.register(
    ssoRoutes({
      sso: services.sso,
      operators: services.operators,
      publicBaseUrl: () => publicBaseUrl(services.config),
    }),
    { prefix: '/v1' },
  );
  await registerManagementRoutes(app, connectionRoutes(services));
  await registerManagementRoutes(app, policyRoutes(services));
  await registerManagementRoutes(app, webhookRoutes(services));
  await registerManagementRoutes(app, privacyRequestRoutes(services));
  await registerHumanSteps(app, services);
  await registerManagementRoutes(app, consentRoutes(services));
  await registerManagementRoutes(app, jurisdictionRoutes());
  await registerManagementRoutes(app, reportRoutes(services));
  await registerManagementRoutes(app, agentRoutes(services));
  await registerManagementRoutes(app, eventSubscriptionRoutes(services));
  await registerManagementRoutes(app, correctionRoutes(services));
  await registerManagementRoutes(app, disclosureRoutes(services));
  await registerManagementRoutes(app, erasurePreviewRoutes(services));
  await app.register(fidesCompatRoutes(services), { prefix: FIDES_PREFIX });
  await registerSubjectDataArea(app, services);
  await registerPrivacyCenter(app, services);
  await app.register(consoleRoutes(services));
  return app;
}
