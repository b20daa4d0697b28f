// HTTP face of the erasure preview: GET /v1/privacy-request/{id}/erasure-preview (privacy-request:review,
// the approver's scope), read-only. The counts are computed in service.ts.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import type { Services } from '../services.ts';
import { previewErasure } from './service.ts';

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const Count = Type.Integer({ minimum: 0 });

const ErasurePreviewView = Type.Object({
  privacy_request_id: Type.String(),
  policy_key: Type.String(),
  erasure_rules: Type.Integer({ description: "how many of the policy's rules are erasure rules" }),
  datastores: Type.Array(
    Type.Object({
      datastore: Type.String(),
      matched_entities: Type.Integer({
        description: "entities the request's identities match, with their descendants",
      }),
      rules: Type.Array(
        Type.Object({
          rule_key: Type.String(),
          strategy: Type.String(),
          effect: Type.Enum(['rewrite', 'delete', 'forget']),
          entities: Count,
          attributes: Type.Integer({
            minimum: 0,
            description: 'attribute values the rule would mask or delete (forget: those its entities hold)',
          }),
          files: Count,
        }),
        { description: 'each erasure rule on the data as it is now, in the order they run' },
      ),
    }),
  ),
  manual_systems: Type.Array(Type.Object({ key: Type.String(), name: Type.String() }), {
    description: 'the manual systems that would get an erasure task',
  }),
  webhooks: Type.Array(
    Type.Object({
      key: Type.String(),
      name: Type.String(),
      timing: Type.String({ description: 'pre or post (execution)' }),
      connection_key: Type.String(),
    }),
    { description: "the policy's pre- and post-execution webhooks, in the order they are called" },
  ),
});

export function erasurePreviewRoutes(services: Services): FastifyPluginAsync {
  return async (app) => {
    app.get<{ Params: { id: string } }>(
      '/privacy-request/:id/erasure-preview',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags: ['privacy requests'],
          summary:
            'What approving this request would erase: per datastore the entities its proven identities match and what each erasure rule would change, the manual systems and the webhooks it would involve. Changes nothing.',
          security,
          params: IdParams,
          response: { 200: ErasurePreviewView, 404: ErrorDetail, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => previewErasure(services, request.params.id),
    );
  };
}
