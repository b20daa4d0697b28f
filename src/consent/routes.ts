// HTTP face of consent: an identity's current preferences and their history, for operators
// (privacy-request:read). The preferences themselves are recorded by the consent rule of a request's run
// and by a privacy-center submission that carries Sec-GPC: 1.
import type { FastifyPluginAsync } from 'fastify';
import { managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { ConsentQuery, ConsentView } from './schemas.ts';
import { readConsent } from './service.ts';

export function consentRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Querystring: ConsentQuery }>(
      '/consent',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags: ['privacy requests'],
          summary:
            "An identity's current consent preferences and their history (give exactly one of email, phone_number; 422 otherwise).",
          security,
          querystring: ConsentQuery,
          response: { 200: ConsentView, ...managementErrors },
        },
      },
      async (request) => readConsent(services.db, services.keyring, request.query),
    );
  };
}
