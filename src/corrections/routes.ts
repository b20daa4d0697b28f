// HTTP face of corrections for operators: the before/after of a request's corrections over every matched
// entity (privacy-request:read), what the reviewer looks at before approving it.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { notFound } from '../errors.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { openIdentity } from '../privacy-requests/identity.ts';
import { NOTHING_PROVED, trustedMatches } from '../privacy-requests/trusted-identity.ts';
import { privacyRequestRepository as requests } from '../privacy-requests/repository.ts';
import type { Services } from '../services.ts';
import { CorrectionPreview } from './schemas.ts';
import { openCorrections } from './sealing.ts';
import { previewCorrections } from './service.ts';

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
        const row = await requests.find(services.db, request.params.id);
        if (!row?.corrections_sealed)
          throw notFound(`No privacy request with id ${request.params.id} asks for corrections.`);
        const identity = row.identity_sealed
          ? openIdentity(services.keyring, row.id, row.identity_sealed)
          : NOTHING_PROVED;
        return previewCorrections(
          services.db,
          services,
          trustedMatches(identity),
          openCorrections(services.keyring, row.id, row.corrections_sealed),
        );
      },
    );
  };
}
