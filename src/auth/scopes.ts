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
] as const;

export type Scope = (typeof SCOPES)[number];

export const ROLES = ['owner', 'approver', 'contributor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const READ_SCOPES: readonly Scope[] = [
  'connection:read',
  'privacy-center:read',
  'policy:read',
  'webhook:read',
  'privacy-request:read',
  'datastore:read',
  'api-key:read',
  'audit-log:read',
];

const ACCOUNT_SCOPES: readonly Scope[] = ['user:read', 'user:*', 'client:read', 'client:*'];

/** What each role may do; docs/operators.md shows this table. An operator holds the union of their roles. */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  /** Everything, including operator accounts and management clients. */
  owner: SCOPES,
  /** Configures Lethe and runs requests; never manages accounts. */
  contributor: SCOPES.filter((scope) => !ACCOUNT_SCOPES.includes(scope)),
  /** Reads everything, submits requests and reviews them (approve, deny, cancel, retry). */
  approver: [...READ_SCOPES, 'privacy-request:create', 'privacy-request:review'],
  /** Reads everything but accounts; changes nothing. */
  viewer: READ_SCOPES,
};

export function scopesOfRoles(roles: readonly Role[]): Scope[] {
  return SCOPES.filter((scope) => roles.some((role) => ROLE_SCOPES[role].includes(scope)));
}

/** Whether `held` grants `required`: exactly, or `x:*` for a required `x:read`. */
export function grants(held: readonly string[], required: string): boolean {
  if (held.includes(required)) return true;
  return required.endsWith(':read') && held.includes(`${required.slice(0, -':read'.length)}:*`);
}

export interface Principal {
  /** The client behind the token, or `user:<username>` for an operator's sign-in. */
  clientId: string;
  /** Set when a person signed in (POST /v1/login). */
  username?: string;
  scopes: readonly string[];
}

/** Who did it, as the request log and `reviewed_by` say: the person's name, else the client's id. */
export function principalName(principal: Principal): string {
  return principal.username ?? principal.clientId;
}

/** The audit log's actor: `user:<username>` or `client:<id>`. */
export function auditActor(principal: Principal): string {
  return principal.username === undefined ? `client:${principal.clientId}` : `user:${principal.username}`;
}
