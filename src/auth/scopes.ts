// The management scopes of DECISIONS.md. The root client holds all of them.
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
  'privacy-center:read',
  'privacy-center:update',
  'datastore:*',
  'api-key:*',
] as const;

export type Scope = (typeof SCOPES)[number];

export interface Principal {
  clientId: string;
  scopes: readonly string[];
  isRoot: boolean;
}
