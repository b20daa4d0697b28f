// Accounts of the company's identity provider: made just in time at a person's first sign-in through it
// (src/sso/), or provisioned by SCIM (src/scim/), and given the roles their groups map to (the role map,
// the SCIM groups). Accounts made here with a password are never taken over nor re-roled from here.
import { type AuditOrigin, recordAudit } from '../audit/audit-log.ts';
import { operatorAccess } from '../auth/service.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict } from '../errors.ts';
import { USERNAME_PATTERN } from './account.ts';
import { operatorRepository } from './repository.ts';
import { rolesOfGroups, scopesOfRoles } from './role-service.ts';

export class ProviderAccounts {
  readonly #db: Database;
  readonly #roleMap: Readonly<Record<string, readonly string[]>>;

  constructor(db: Database, roleMap: Readonly<Record<string, readonly string[]>>) {
    this.#db = db;
    this.#roleMap = roleMap;
  }

  /**
   * The account of a person the identity provider vouched for (src/sso/): found by the provider's subject,
   * else a SCIM-provisioned account of the same username not yet linked (linked now), else made now, just
   * in time. Groups and roles are replaced by what the provider says at every sign-in (the groups of the
   * ID token with the SCIM groups). No mapped role refuses, and an existing account then loses its roles
   * and sessions; so does a deactivated one. A password account of the same name is never taken over.
   * Each outcome is audited; the person's claims are not.
   */
  async admit(
    person: {
      subject: string;
      username: string;
      email: string | null;
      displayName: string | null;
      groups: string[];
    },
    origin: AuditOrigin,
  ): Promise<{ admitted: true; username: string } | { admitted: false; reason: string }> {
    const outcome = await this.#db.transaction(async (tx) => {
      const row =
        (await operatorRepository.findBySubject(tx, person.subject)) ??
        (await operatorRepository.lock(tx, person.username));
      if (row && row.provider_subject !== null && row.provider_subject !== person.subject) {
        return {
          admitted: false as const,
          username: person.username,
          reason: `The username ${person.username} here belongs to another person at the identity provider. Ask your administrator.`,
        };
      }
      if (row && row.provider_subject === null && row.provider !== 'scim') {
        return {
          admitted: false as const,
          username: person.username,
          reason: `An operator named ${person.username} already exists here with a password; it is not linked to the identity provider. Ask an owner to delete or rename it.`,
        };
      }
      if (row && !row.active) {
        return {
          admitted: false as const,
          username: row.username,
          reason: 'Your account here is deactivated. Ask your administrator.',
        };
      }
      const username = row?.username ?? person.username;
      const scimGroups = row ? await operatorRepository.scimGroupsOf(tx, row.username) : [];
      const roles = await rolesOfGroups(tx, [...person.groups, ...scimGroups], this.#roleMap);
      if (roles.length === 0) {
        if (row) {
          await operatorRepository.update(tx, row.username, { roles: [], groups: person.groups });
          await operatorAccess.revoke(tx, row.username);
        }
        return {
          admitted: false as const,
          username,
          reason: `None of your groups at the identity provider gives a role in Lethe${
            person.groups.length > 0 ? ` (your groups: ${person.groups.join(', ')})` : ' (it named no groups)'
          }. Ask your administrator to add you to a group that does.`,
        };
      }
      if (!row) {
        if (!new RegExp(USERNAME_PATTERN).test(username)) {
          return {
            admitted: false as const,
            username,
            reason:
              'The name the identity provider gives you cannot be a username here (lower-case letters, digits, ".", "_", "@", "-").',
          };
        }
        const created = await operatorRepository.insert(tx, {
          username,
          passwordHash: null,
          roles,
          email: person.email,
          createdBy: 'oidc',
          provider: 'oidc',
          providerSubject: person.subject,
          groups: person.groups,
          displayName: person.displayName,
        });
        if (!created) throw conflict(`An operator named ${username} already exists.`);
        await recordAudit(tx, {
          action: 'operator.create',
          actor: 'oidc',
          ...origin,
          details: { username, roles, provider: 'oidc' },
        });
        return { admitted: true as const, username };
      }
      const before = row.roles.join(',');
      await operatorRepository.update(tx, row.username, {
        roles,
        groups: person.groups,
        providerSubject: person.subject,
      });
      if (before !== roles.join(',')) {
        await operatorAccess.rescope(tx, row.username, await scopesOfRoles(tx, roles));
        await recordAudit(tx, {
          action: 'operator.update',
          actor: 'oidc',
          ...origin,
          details: { username: row.username, roles },
        });
      }
      return { admitted: true as const, username: row.username };
    });
    if (!outcome.admitted) {
      await recordAudit(this.#db, {
        action: 'operator.login.refused',
        actor: 'oidc',
        ...origin,
        details: { username: outcome.username, reason: outcome.reason },
      });
      return { admitted: false, reason: outcome.reason };
    }
    return outcome;
  }

  /**
   * Gives the provider's operators among `usernames` the roles their groups now map to (a SCIM group
   * changed); their live sessions get the new scopes at once. Accounts made here keep their roles.
   */
  async refreshRoles(tx: Queryable, usernames: readonly string[], by: string, origin: AuditOrigin) {
    for (const username of new Set(usernames)) {
      const row = await operatorRepository.lock(tx, username);
      if (!row || row.provider === null) continue;
      const groups = [...row.groups, ...(await operatorRepository.scimGroupsOf(tx, username))];
      const roles = await rolesOfGroups(tx, groups, this.#roleMap);
      if (roles.join(',') === row.roles.join(',')) continue;
      await operatorRepository.update(tx, username, { roles });
      await operatorAccess.rescope(tx, username, await scopesOfRoles(tx, roles));
      await recordAudit(tx, {
        action: 'operator.update',
        actor: by,
        ...origin,
        details: { username, roles },
      });
    }
  }
}
