// HTTP face of disclosures: GET and PUT of a datastore's (datastore:read, datastore:update) and of a
// connection's (connection:read, connection:create_or_update) purposes, recipients, retention, source and
// automated decisions, as every access report shows them.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { ResourceKey } from '../validation/bulk.ts';
import { Disclosure, DisclosureView } from './schemas.ts';
import { putDisclosure, readDisclosure } from './service.ts';

const responses = { 200: DisclosureView, 404: ErrorDetail, ...managementErrors };

export function disclosureRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    const DatastoreParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });
    const ConnectionParams = Type.Object({ connection_key: ResourceKey });

    app.get<{ Params: { name: string } }>(
      '/datastore/:name/disclosure',
      {
        onRequest: app.authorize('datastore:read'),
        schema: {
          tags: ['datastores'],
          summary: "What the access report tells a subject about this datastore's use of their data.",
          security,
          params: DatastoreParams,
          response: responses,
        },
      },
      async (request) => readDisclosure(services.db, 'datastore', request.params.name),
    );

    app.put<{ Params: { name: string }; Body: Disclosure }>(
      '/datastore/:name/disclosure',
      {
        onRequest: app.authorize('datastore:update'),
        schema: {
          tags: ['datastores'],
          summary:
            'Set the purposes, recipients, retention, source and automated decisions of a datastore (GDPR art. 15(1)); every access report carries them.',
          security,
          params: DatastoreParams,
          body: Disclosure,
          response: responses,
        },
      },
      async (request) =>
        putDisclosure(services.db, changeActorOf(request), 'datastore', request.params.name, request.body),
    );

    app.get<{ Params: { connection_key: string } }>(
      '/connection/:connection_key/disclosure',
      {
        onRequest: app.authorize('connection:read'),
        schema: {
          tags: ['connections'],
          summary: "What the access report tells a subject about this receiver's use of their data.",
          security,
          params: ConnectionParams,
          response: responses,
        },
      },
      async (request) => readDisclosure(services.db, 'connection', request.params.connection_key),
    );

    app.put<{ Params: { connection_key: string }; Body: Disclosure }>(
      '/connection/:connection_key/disclosure',
      {
        onRequest: app.authorize('connection:create_or_update'),
        schema: {
          tags: ['connections'],
          summary:
            "Set a receiver's purposes, recipients, retention, source and automated decisions, where it holds the subject's data; access reports of requests whose webhooks call it carry them.",
          security,
          params: ConnectionParams,
          body: Disclosure,
          response: responses,
        },
      },
      async (request) =>
        putDisclosure(
          services.db,
          changeActorOf(request),
          'connection',
          request.params.connection_key,
          request.body,
        ),
    );
  };
}
