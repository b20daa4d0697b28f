// The management scopes of the Fides-compatible API (docs/area-a.md), plus the read-only and account scopes the operator roles need.
// The root client holds all of them. A route that needs `x:read` also admits a holder of `x:*`.
export const SCOPES = [
  'connection:read',
  'connection:create_or_update',
  'connection:delete',
  'policy:read',
  'policy:create_or_update',
  'webhook:read',
  'webhook:create_or_update',
  'privacy-request:read',
  'privacy-request:create',
  'privacy-request:review',
  'privacy-request:resume',
  'datastore:read',
  'datastore:update',
  'privacy-center:read',
  'privacy-center:update',
  'datastore:*',
  'api-key:read',
  'api-key:*',
  'audit-log:read',
  'user:read',
  'user:*',
  'client:read',
  'client:*',
  'manual-system:read',
  'manual-system:update',
  'task:read',
  'task:update',
  'event-subscription:read',
  'event-subscription:update',
  'scim',
] as const;

export type Scope = (typeof SCOPES)[number];

/** What each scope lets its holder do, in SCOPES' order; GET /v1/oauth/scopes serves it to the console. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'connection:read': 'See connections (URLs and which secrets are set, never the secrets).',
  'connection:create_or_update': 'Create connections and set their URLs, secrets, OAuth and signing secrets.',
  'connection:delete': 'Delete connections no webhook uses.',
  'policy:read': 'See policies and their rules.',
  'policy:create_or_update': 'Create policies and add or change their rules.',
  'webhook:read': 'See the pre-approval, pre- and post-execution webhooks and their order.',
  'webhook:create_or_update': 'Add, reorder, change and remove webhooks.',
  'privacy-request:read': 'See privacy requests, their timelines, access packages and the outbox.',
  'privacy-request:create': "Submit privacy requests on a data subject's behalf.",
  'privacy-request:review': 'Approve, deny, cancel and retry privacy requests.',
  'privacy-request:resume': 'Resume a paused request (what a two-way webhook target calls).',
  'datastore:read':
    'See datastores and maintenance mode; browse their entities, masked, and reveal one (each reveal audited).',
  'privacy-center:read': "See the public privacy center's settings.",
  'privacy-center:update': 'Change the privacy center: title, organisation, published policies.',
  'datastore:update':
    "Declare a datastore's identity attributes (which attributes hold which identity kind).",
  'datastore:*':
    'Create and delete datastores, declare their identity attributes and switch maintenance mode.',
  'api-key:read': 'See API keys (never the keys themselves).',
  'api-key:*': 'Issue and revoke API keys.',
  'audit-log:read': 'Read the audit log.',
  'user:read': 'See operator accounts, their roles and the custom roles.',
  'user:*': 'Create, change and delete operator accounts and custom roles.',
  'client:read': 'See management clients and their scopes.',
  'client:*': 'Create and delete management clients (with at most your own scopes).',
  'manual-system:read': 'See manual systems: their fields, instructions and assignees.',
  'manual-system:update': 'Create, change and delete manual systems.',
  'task:read': 'See the tasks of privacy requests (who owns them, when they are due).',
  'task:update': 'Complete, skip, assign tasks and invite their respondents.',
  'event-subscription:read':
    'See event subscriptions (URLs masked, never their secrets), their delivery logs and the events they may name.',
  'event-subscription:update':
    'Create, change and delete event subscriptions, rotate their secrets, redeliver.',
  scim: "Provision and deactivate operators and their groups through SCIM (/scim/v2), as the company's identity provider does.",
};

/** The built-in roles; custom roles (src/operators/role-service.ts) add named sets of scopes beside them. */
export const ROLES = ['owner', 'approver', 'contributor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export function isBuiltInRole(name: string): name is Role {
  return (ROLES as readonly string[]).includes(name);
}

export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  owner: 'Everything, including operator accounts, roles and management clients.',
  approver: 'Reads everything, submits requests and reviews them (approve, deny, cancel, retry).',
  contributor: 'Configures Lethe and runs requests; never manages accounts.',
  viewer: 'Reads everything but accounts; changes nothing.',
};

const READ_SCOPES: readonly Scope[] = [
  'connection:read',
  'privacy-center:read',
  'policy:read',
  'webhook:read',
  'privacy-request:read',
  'datastore:read',
  'api-key:read',
  'audit-log:read',
  'manual-system:read',
  'task:read',
  'event-subscription:read',
];

const ACCOUNT_SCOPES: readonly Scope[] = ['user:read', 'user:*', 'client:read', 'client:*', 'scim'];

/** What each role may do; docs/operators.md shows this table. An operator holds the union of their roles. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  /** Everything, including operator accounts and management clients. */
  owner: SCOPES,
  /** Configures Lethe and runs requests; never manages accounts. */
  contributor: SCOPES.filter((scope) => !ACCOUNT_SCOPES.includes(scope)),
  /** Reads everything, submits requests and reviews them (approve, deny, cancel, retry). */
  approver: [...READ_SCOPES, 'privacy-request:create', 'privacy-request:review', 'task:update'],
  /** Reads everything but accounts; changes nothing. */
  viewer: READ_SCOPES,
};

/** The scopes of built-in roles; custom roles are resolved by the role service, which calls this for the rest. */
export function scopesOfRoles(roles: readonly Role[]): Scope[] {
  return SCOPES.filter((scope) => roles.some((role) => ROLE_SCOPES[role].includes(scope)));
}

/**
 * Whether `held` grants `required`: exactly, or `x:*` for a required `x:read` or `x:update` (a datastore's
 * identity attributes need `datastore:update`, which every holder of `datastore:*` had before it existed).
 */
export function grants(held: readonly string[], required: string): boolean {
  if (held.includes(required)) return true;
  const action = /:(read|update)$/.exec(required);
  return action !== null && held.includes(`${required.slice(0, -action[0].length)}:*`);
}

export interface Principal {
  /** The client behind the token, or `user:<username>` for an operator's sign-in. */
  clientId: string;
  /** Set when a person signed in (POST /v1/login). */
  username?: string;
  scopes: readonly string[];
  /**
   * The person behind the token, as two-person rules compare them: `user:<username>` for an operator's
   * sign-in and for every client that operator made (a client acts for its maker), `client:<id>` for the
   * root client, the CLI and clients made by them.
   */
  actsFor: string;
}

/** Who did it, as the request log and `reviewed_by` say: the person's name, else the client's id. */
export function principalName(principal: Principal): string {
  return principal.username ?? principal.clientId;
}

/** The audit log's actor: `user:<username>` or `client:<id>`. */
export function auditActor(principal: Principal): string {
  return principal.username === undefined ? `client:${principal.clientId}` : `user:${principal.username}`;
}
