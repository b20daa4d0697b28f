// Serves the OpenAPI 3.0.3 document at /openapi.json (and Swagger UI at /docs). The document is generated
// from the route schemas (@fastify/swagger) and then finished in one place (finish.ts): operation ids,
// tags, security, every status the server can answer, named components. Route files only describe their
// own shapes; nothing here changes how a request is handled.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.ts';
import { VERSION } from '../../version.ts';
import type { OpenApiDocument } from './document.ts';
import { finishDocument } from './finish.ts';

export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'publicUrl'>) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Lethe',
        version: VERSION,
        license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
        description:
          'Privacy requests (Area A: management under /v1) and the subject data store (Area B: /api). ' +
          'Fides\' own paths answer under /api/v1 with Fides\' shapes. Every JSON error is {"detail": "..."}; ' +
          'Area B errors are text/plain sentences.',
      },
      // LETHE_PUBLIC_URL when set; otherwise relative, so a client generated from a served document calls
      // the host it was fetched from.
      servers: [{ url: config.publicUrl ?? '/' }],
      components: {
        securitySchemes: {
          managementToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'An access token from POST /v1/oauth/token or POST /v1/login.',
          },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'api-key',
            description: 'An Area B API key (or Authorization: Bearer <key>).',
          },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'The LETHE_METRICS_TOKEN value.' },
          replyToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The reply-to-token a webhook call carried (resume, pre-approval answers); one request only.',
          },
        },
      },
    },
    transformObject: (generated) =>
      finishDocument((generated as { openapiObject: unknown }).openapiObject as OpenApiDocument) as object,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
