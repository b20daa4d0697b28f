// HTTP face of corrections for operators: the before/after of a request's corrections over every matched
// entity (privacy-request:read), what the reviewer looks at before approving it.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { notFound } from '../errors.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { CorrectionPreview } from './schemas.ts';
import { previewRequestCorrections } from './service.ts';

export function correctionRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { id: string } }>(
      '/privacy-request/:id/corrections',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags: ['privacy requests'],
          summary:
            "A request's corrections with the before and after of every matched entity, for the reviewer (404 when it asks for none).",
          security,
          params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) }),
          response: { 200: CorrectionPreview, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const preview = await previewRequestCorrections(services, request.params.id);
        if (!preview) throw notFound(`No privacy request with id ${request.params.id} asks for corrections.`);
        return preview;
      },
    );
  };
}
