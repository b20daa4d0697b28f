// The shapes the console reads and sends, each the type generated from /openapi.json for the answer or
// body that carries it (clients/typescript/lethe-api.d.ts): nothing here is copied by hand, so a change to
// a route's schema shows up as a compile error in the page that reads it. Secrets never appear in them:
// the API answers masks, and the console only ever sends secrets.
import type { paths, Schema } from '../../clients/typescript/index.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The JSON of a path's 2xx answer (200 or 201). */
export type Ok<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { 'application/json': infer T } } }
    ? T
    : R extends { 201: { content: { 'application/json': infer T } } }
      ? T
      : never
  : never;

/** The JSON body a path takes. */
export type Body<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type ConsoleSession = Ok<'/console/session', 'get'>;
export type Connection = Schema<'Connection'>;
/** A connection as PATCH /v1/connection answers it: a created one shows its signing secret once. */
export type UpsertedConnection = Ok<'/v1/connection', 'patch'>['succeeded'][number];
/** POST /v1/connection/{key}/signing-secret: the new secret, shown once. */
export type SigningSecretRotation = Ok<'/v1/connection/{connection_key}/signing-secret', 'post'>;
export type Rule = Schema<'Rule'>;
export type Policy = Schema<'Policy'>;
/** A webhook of a list: a policy's (with a direction) or a pre-approval webhook. */
export type Webhook = Schema<'PreApprovalWebhook'> & { direction?: string };
export type Direction = NonNullable<
  Body<'/v1/policy/{policy_key}/webhook/pre_execution/{webhook_key}', 'patch'>['direction']
>;
export type Datastore = Ok<'/v1/datastore', 'get'>[number];
export type ApiKey = Ok<'/v1/api-key', 'get'>[number];
export type IssuedApiKey = Ok<'/v1/api-key', 'post'>;
export type AuditEntry = Ok<'/v1/audit-log', 'get'>['items'][number];
export type PrivacyRequest = Schema<'PrivacyRequest'>;
export type Task = Schema<'Task'>;
export type ManualSystem = Schema<'ManualSystem'>;
export type IdentityValue = { label?: string; value?: string };
/** One line of a request's log: a transition, a webhook call, the rules' run or a note. */
export type RequestLogEntry = Schema<'PrivacyRequestLogEntry'>;
export type Operator = Ok<'/v1/user', 'get'>[number];
export type ManagementClient = Ok<'/v1/oauth/client', 'get'>[number];
/** GET /v1/oauth/scopes: a scope and what it allows, in the service's order. */
export type ScopeDescription = Ok<'/v1/oauth/scopes', 'get'>[number];
/** GET /v1/action-type: an action type of the service's registry (what its rules take and do). */
export type ActionType = Ok<'/v1/action-type', 'get'>[number];
/** GET /v1/masking/strategy: a masking strategy of the service's registry. */
export type MaskingStrategy = Ok<'/v1/masking/strategy', 'get'>[number];
/** GET /v1/datastore/{name}/entity: an entity with its attribute names, never a value. */
export type BrowsedEntity = Ok<'/v1/datastore/{name}/entity', 'get'>['items'][number];
/** GET /v1/datastore/{name}/entity/{id}: the values asked for (the reveal is audited). */
export type RevealedEntity = Ok<'/v1/datastore/{name}/entity/{id}', 'get'>;

/** The privacy center's settings, as GET /v1/privacy-center answers them and PUT takes them. */
export type PrivacyCenterSettings = Ok<'/v1/privacy-center', 'get'>;
export type PrivacyCenterAction = PrivacyCenterSettings['actions'][number];
export type InputRequirement = NonNullable<PrivacyCenterAction['identity_inputs']['email']>;
/** A message to a data subject in the outbox; `text` and `html` are null once delivered (purged). */
export type OutboxMessage = Ok<'/v1/outbox', 'get'>['items'][number];
