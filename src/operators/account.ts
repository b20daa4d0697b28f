// What an operator account is, as the rest of Lethe sees it: the username's shape, the bound on the email,
// and the view an account is shown as (never its password hash).
import type { OperatorRow } from './repository.ts';

/** RFC 5321's practical bound on a path (254), tighter than the service-wide MAX_EMAIL_LENGTH. */
export const MAX_OPERATOR_EMAIL_LENGTH = 254;

/** Lower-case letters, digits, `.`, `_`, `@` and `-`; at most 100 characters. */
export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._@-]{0,99}$';

export interface OperatorView {
  username: string;
  roles: string[];
  /** The operator's own work address (reminders go there); never logged nor audited. */
  email: string | null;
  /** `oidc` (made at the first sign-in through the provider), `scim` (provisioned), or null (made here). */
  provider: 'oidc' | 'scim' | null;
  /** The groups the provider last reported (ID token claim, SCIM groups). */
  groups: string[];
  /** False once deactivated by SCIM: no sign-in, no session, no client acting for them. */
  active: boolean;
  digest: boolean;
  created_by: string;
  created_at: string;
}

export function toView(row: OperatorRow): OperatorView {
  return {
    username: row.username,
    roles: row.roles,
    email: row.email,
    provider: row.provider,
    groups: [...new Set([...row.groups, ...(row.scim_groups ?? [])])],
    active: row.active,
    digest: row.digest,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}
