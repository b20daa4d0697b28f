// Operator accounts over HTTP: POST/GET /v1/user, PATCH/DELETE /v1/user/{username} (scopes user:*, user:read)
// and POST /v1/login in Fides' shape. Login failures count against the caller's address like every
// other failed authentication (src/rate-limits/address-throttle.ts), and an attempt is counted in flight
// before its password is hashed; 429 when too many hashes already run and wait (src/crypto/password.ts).
import type { FastifyPluginAsync } from 'fastify';
import Type from 'typebox';
import { MAX_PASSWORD_LENGTH } from '../crypto/password.ts';
import { DomainError } from '../errors.ts';
import { auditOriginOf, changeActorOf } from '../http/authorize.ts';
import { ErrorDetail, managementErrors, security } from '../http/schemas.ts';
import { ROLE_NAME_PATTERN } from './role-service.ts';
import { MAX_OPERATOR_EMAIL_LENGTH } from './account.ts';
import type { OperatorService } from './service.ts';

const RoleName = Type.String({
  pattern: ROLE_NAME_PATTERN,
  description: 'a built-in role (owner, approver, contributor, viewer) or a custom one (GET /v1/role)',
});

const Operator = Type.Object({
  username: Type.String(),
  roles: Type.Array(Type.String()),
  email: Type.Union([Type.String(), Type.Null()]),
  provider: Type.Union([Type.Literal('oidc'), Type.Literal('scim'), Type.Null()], {
    description:
      'oidc: made at the first sign-in through the identity provider; scim: provisioned by it; null: made here',
  }),
  groups: Type.Array(Type.String(), {
    description: "the provider's groups of the operator, as last reported",
  }),
  active: Type.Boolean({ description: 'false once the provider deactivated the operator' }),
  digest: Type.Boolean({ description: 'whether the operator gets the daily digest (docs/events.md)' }),
  created_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});

const Credentials = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

const OperatorEmail = Type.Union([Type.String({ maxLength: MAX_OPERATOR_EMAIL_LENGTH }), Type.Null()], {
  description: "the operator's own work address, where overdue-task reminders go; null or empty clears it",
});

const NewOperator = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 100 }),
    password: Type.String({ maxLength: MAX_PASSWORD_LENGTH, description: 'at least 12 characters' }),
    roles: Type.Array(RoleName, { minItems: 1, maxItems: 50 }),
    email: Type.Optional(OperatorEmail),
  },
  { additionalProperties: false },
);

const OperatorChange = Type.Object(
  {
    email: Type.Optional(OperatorEmail),
    roles: Type.Optional(
      Type.Array(RoleName, { minItems: 1, maxItems: 50, description: "replaces the operator's roles" }),
    ),
    digest: Type.Optional(
      Type.Boolean({
        description:
          'one mail each local morning (LETHE_TIME_ZONE) listing what needs the operator, to their email (docs/events.md)',
      }),
    ),
  },
  { additionalProperties: false },
);

const LoginAnswer = Type.Object({
  user_data: Type.Object({ username: Type.String(), roles: Type.Array(Type.String()) }),
  token_data: Type.Object({
    access_token: Type.String(),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer(),
  }),
});

export function operatorRoutes(operators: OperatorService): FastifyPluginAsync {
  return async (app) => {
    app.post<{ Body: Type.Static<typeof Credentials> }>(
      '/login',
      {
        schema: {
          tags: ['management auth'],
          summary: "Sign in as an operator; answers Fides' user_data and token_data.",
          body: Credentials,
          response: {
            200: LoginAnswer,
            401: ErrorDetail,
            403: ErrorDetail,
            422: ErrorDetail,
            429: ErrorDetail,
          },
        },
      },
      async (request, reply) => {
        // Counted before the password is hashed: a burst from one address hashes at most its limit.
        const release = await app.addressThrottle.holdAttempt(request, reply);
        try {
          return await operators.signIn.login(request.body, auditOriginOf(request));
        } catch (error) {
          if (error instanceof DomainError && error.kind === 'unauthorized') {
            throw await app.addressThrottle.chargeFailure(request, reply, error);
          }
          if (error instanceof DomainError && error.kind === 'too_many_requests') {
            reply.header('retry-after', '2');
          }
          throw error;
        } finally {
          release();
        }
      },
    );

    app.post<{ Body: Type.Static<typeof NewOperator> }>(
      '/user',
      {
        onRequest: app.authorize('user:*'),
        schema: {
          tags: ['operators'],
          summary: 'Create an operator account with roles (owner, approver, contributor, viewer, or custom).',
          security,
          body: NewOperator,
          response: { 201: Operator, 409: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await operators.create(changeActorOf(request), request.body)),
    );

    app.get(
      '/user',
      {
        onRequest: app.authorize('user:read'),
        schema: {
          tags: ['operators'],
          summary: 'List operator accounts (never their passwords).',
          security,
          response: { 200: Type.Array(Operator), ...managementErrors },
        },
      },
      async () => operators.list(),
    );

    app.patch<{ Params: { username: string }; Body: Type.Static<typeof OperatorChange> }>(
      '/user/:username',
      {
        onRequest: app.authorize('user:*'),
        schema: {
          tags: ['operators'],
          summary:
            "Change an operator account's email (where their overdue-task reminders go), roles, or whether they get the daily digest.",
          security,
          params: Type.Object({ username: Type.String({ maxLength: 100 }) }),
          body: OperatorChange,
          response: { 200: Operator, 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request) => operators.update(changeActorOf(request), request.params.username, request.body),
    );

    app.delete<{ Params: { username: string } }>(
      '/user/:username',
      {
        onRequest: app.authorize('user:*'),
        schema: {
          tags: ['operators'],
          summary: 'Delete an operator account and revoke its tokens.',
          security,
          params: Type.Object({ username: Type.String({ maxLength: 100 }) }),
          response: { 204: Type.Null(), 404: ErrorDetail, ...managementErrors },
        },
      },
      async (request, reply) => {
        await operators.remove(changeActorOf(request), request.params.username);
        return reply.status(204).send();
      },
    );
  };
}
