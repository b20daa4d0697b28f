// HTTP face of authorized agents for operators: who acted for a request's subject and how they were
// authorised (privacy-request:read), and the acceptance of a power of attorney in place of the subject's
// confirmation (privacy-request:review, with a reason). Domain rules live in service.ts.
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { PrivacyRequestView } from '../privacy-requests/schemas.ts';
import { PrivacyRequestService } from '../privacy-requests/service.ts';
import type { Services } from '../services.ts';
import { CUSTOM_KEY_PATTERN } from '../datastore/identity-attributes.ts';
import { PATTERN_HINT } from '../validation/messages.ts';
import { acceptAgent, agentView } from './service.ts';

const tags = ['privacy requests'];
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

const AgentView = Type.Object({
  name: Type.String(),
  email: Type.String(),
  email_verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  authorization: Type.Union(
    [Type.Literal('subject_confirmed'), Type.Literal('power_of_attorney'), Type.Null()],
    {
      description: 'how the agent was authorised; null while the subject has not confirmed them',
    },
  ),
  authorized_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  authorized_by: Type.Union([Type.String(), Type.Null()], {
    description: '"subject", or the operator who accepted a power of attorney',
  }),
  reason: Type.Union([Type.String(), Type.Null()]),
  identities: Type.Array(Type.String(), {
    description:
      "the identity keys an operator's power of attorney established beside the subject's address (empty otherwise)",
  }),
});

export function agentRoutes(services: Services): FastifyPluginAsync {
  const requests = new PrivacyRequestService(services);
  return async (app) => {
    app.get<{ Params: { id: string } }>(
      '/privacy-request/:id/agent',
      {
        onRequest: app.authorize('privacy-request:read'),
        schema: {
          tags,
          summary: 'The authorized agent who made a request, and how they were authorised (404 when none).',
          security,
          params: IdParams,
          response: { 200: AgentView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => agentView(services, request.params.id),
    );

    app.post<{ Params: { id: string }; Body: { reason: string; identities: string[] } }>(
      '/privacy-request/:id/agent/accept',
      {
        onRequest: app.authorize('privacy-request:review'),
        schema: {
          tags,
          summary:
            "Accept an authorized agent on a power of attorney, in place of the subject's confirmation, naming the identities the document establishes; the request goes on (400 when it is not awaiting its agent's authorisation, 422 when it does not carry a named identity).",
          security,
          params: IdParams,
          body: Type.Object(
            {
              reason: Type.String({
                minLength: 1,
                maxLength: 1000,
                pattern: '\\S',
                [PATTERN_HINT]: 'not be blank',
                description: 'what the operator saw',
              }),
              identities: Type.Array(Type.String({ pattern: CUSTOM_KEY_PATTERN, maxLength: 64 }), {
                maxItems: 20,
                description:
                  "Which of the request's identities (keys such as phone_number) the document establishes, beside the subject's email ([]: the email only); every other value stays unverified and is never matched. Naming one the request does not carry: 422.",
              }),
            },
            { additionalProperties: false },
          ),
          response: { 200: PrivacyRequestView, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => {
        const acceptance = { reason: request.body.reason.trim(), identities: request.body.identities };
        await acceptAgent(services, request.params.id, acceptance, changeActorOf(request));
        return requests.get(request.params.id);
      },
    );
  };
}
