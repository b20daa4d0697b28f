// HTTP face of manual systems (scopes manual-system:read and manual-system:update). Domain rules live in
// service.ts.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { ManualSystemInput, ManualSystemKeyParams, ManualSystemView } from './schemas.ts';
import { deleteManualSystem, listManualSystems, putManualSystem, readManualSystem } from './service.ts';

const tags = ['manual systems'];
type KeyRoute = { Params: { key: string } };

export function manualSystemRoutes(services: Services): FastifyPluginAsync {
  const { db } = services;
  return async (app) => {
    app.get(
      '/manual-system',
      {
        onRequest: app.authorize('manual-system:read'),
        schema: {
          tags,
          summary: 'Every manual system, by key.',
          security,
          response: { 200: Type.Array(ManualSystemView), ...managementErrors },
        },
      },
      async () => listManualSystems(db),
    );

    app.get<KeyRoute>(
      '/manual-system/:key',
      {
        onRequest: app.authorize('manual-system:read'),
        schema: {
          tags,
          summary: 'One manual system.',
          security,
          params: ManualSystemKeyParams,
          response: { 200: ManualSystemView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => readManualSystem(db, request.params.key),
    );

    app.put<KeyRoute & { Body: ManualSystemInput }>(
      '/manual-system/:key',
      {
        onRequest: app.authorize('manual-system:update'),
        schema: {
          tags,
          summary:
            'Create or replace a manual system: every privacy request whose action it lists gets a task for it when its rules run (201 when new).',
          security,
          params: ManualSystemKeyParams,
          body: ManualSystemInput,
          response: { 200: ManualSystemView, 201: ManualSystemView, ...managementErrors },
        },
      },
      async (request, reply) => {
        const { system, created } = await putManualSystem(
          db,
          changeActorOf(request),
          request.params.key,
          request.body,
        );
        request.log.info({ manual_system_key: system.key, created }, 'manual system saved');
        return reply.status(created ? 201 : 200).send(system);
      },
    );

    app.delete<KeyRoute>(
      '/manual-system/:key',
      {
        onRequest: app.authorize('manual-system:update'),
        schema: {
          tags,
          summary: 'Delete a manual system; tasks already given out stay as they are.',
          security,
          params: ManualSystemKeyParams,
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await deleteManualSystem(db, changeActorOf(request), request.params.key);
        request.log.info({ manual_system_key: request.params.key }, 'manual system deleted');
        return reply.status(204).send();
      },
    );
  };
}
