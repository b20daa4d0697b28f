// Roles: the four built-in roles (src/auth/scopes.ts) and custom roles, each a named set of scopes
// (PUT /v1/role/{name}). An operator holds the union of their roles' scopes; the identity provider's role
// map (LETHE_OIDC_ROLE_MAP) may name either kind. Changing a custom role changes the scopes of the live
// sessions of everyone holding it at once; a role someone holds cannot be deleted.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { operatorAccess } from '../auth/service.ts';
import {
  grants,
  isBuiltInRole,
  principalName,
  ROLE_DESCRIPTIONS,
  ROLE_SCOPES,
  ROLES,
  type Scope,
  SCOPES,
} from '../auth/scopes.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict, forbidden, invalid, notFound } from '../errors.ts';
import { operatorRepository } from './repository.ts';
import { type RoleRow, roleRepository } from './role-repository.ts';

export const ROLE_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,62}$';
export const MAX_ROLE_DESCRIPTION_LENGTH = 500;

export interface RoleView {
  name: string;
  scopes: string[];
  description: string;
  built_in: boolean;
  /** Who last changed a custom role (null for a built-in one). */
  updated_by: string | null;
  updated_at: string | null;
}

export class RoleService {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async list(): Promise<RoleView[]> {
    const builtIn = ROLES.map((name) => ({
      name,
      scopes: [...ROLE_SCOPES[name]],
      description: ROLE_DESCRIPTIONS[name],
      built_in: true,
      updated_by: null,
      updated_at: null,
    }));
    return [...builtIn, ...(await roleRepository.list(this.#db)).map(toView)];
  }

  /**
   * Creates or replaces a custom role. The caller must hold every scope it gives (as for giving a role to
   * an operator): nobody makes a role broader than themselves. Built-in roles cannot be changed.
   */
  async put(
    by: ChangeActor,
    name: string,
    input: { scopes: readonly string[]; description?: string },
  ): Promise<{ role: RoleView; created: boolean }> {
    if (isBuiltInRole(name)) throw conflict(`${name} is a built-in role; built-in roles cannot be changed.`);
    if (!new RegExp(ROLE_NAME_PATTERN).test(name)) {
      throw invalid(
        'The role name must be 1 to 63 lower-case letters, digits, "_" or "-", starting with a letter.',
      );
    }
    const unknown = input.scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0) throw invalid(`body.scopes has unknown scopes: ${unknown.join(', ')}.`);
    if (input.scopes.length === 0) throw invalid('body.scopes must name at least one scope.');
    const beyond = input.scopes.filter((scope) => !grants(by.principal.scopes, scope));
    if (beyond.length > 0)
      throw forbidden(`You cannot give a role scopes you do not hold: ${beyond.join(', ')}.`);
    const scopes = SCOPES.filter((scope) => input.scopes.includes(scope));
    return this.#db.transaction(async (tx) => {
      const { row, created } = await roleRepository.upsert(tx, {
        name,
        scopes,
        description: (input.description ?? '').trim(),
        updatedBy: principalName(by.principal),
      });
      await recordChange(tx, by, created ? 'role.create' : 'role.update', { name, scopes });
      // Those who hold the role act with its new scopes from their next request on.
      for (const operator of await operatorRepository.withRole(tx, name)) {
        await operatorAccess.rescope(tx, operator.username, await scopesOfRoles(tx, operator.roles));
      }
      return { role: toView(row), created };
    });
  }

  /** Deletes a custom role nobody holds (409 otherwise: take it from them first). */
  async remove(by: ChangeActor, name: string): Promise<void> {
    if (isBuiltInRole(name)) throw conflict(`${name} is a built-in role; built-in roles cannot be deleted.`);
    await this.#db.transaction(async (tx) => {
      const row = await roleRepository.lock(tx, name);
      if (!row) throw notFound(`No custom role named ${name}.`);
      const holders = await operatorRepository.withRole(tx, name);
      if (holders.length > 0) {
        throw conflict(
          `The role ${name} is held by ${holders.length} operator${holders.length === 1 ? '' : 's'}; take it from them first.`,
        );
      }
      await roleRepository.remove(tx, name);
      await recordChange(tx, by, 'role.delete', { name });
    });
  }
}

/** The scopes of the roles, built-in or custom, in SCOPES' order; a role that no longer exists gives none. */
export async function scopesOfRoles(db: Queryable, roles: readonly string[]): Promise<Scope[]> {
  const custom = await roleRepository.findMany(
    db,
    roles.filter((role) => !isBuiltInRole(role)),
  );
  const held = new Set<string>([
    ...roles.filter(isBuiltInRole).flatMap((role) => ROLE_SCOPES[role]),
    ...custom.flatMap((role) => role.scopes),
  ]);
  return SCOPES.filter((scope) => held.has(scope));
}

/** The roles as given, deduplicated, built-in first; 422 naming any that exists neither built in nor custom. */
export async function knownRoles(db: Queryable, roles: readonly string[], field: string): Promise<string[]> {
  const unique = [...new Set(roles)];
  const custom = new Set(
    (
      await roleRepository.findMany(
        db,
        unique.filter((role) => !isBuiltInRole(role)),
      )
    ).map((role) => role.name),
  );
  const unknown = unique.filter((role) => !isBuiltInRole(role) && !custom.has(role));
  if (unknown.length > 0) {
    throw invalid(
      `${field} has unknown roles: ${unknown.join(', ')} (built in: ${ROLES.join(', ')}; see GET /v1/role for the custom ones).`,
    );
  }
  return [
    ...ROLES.filter((role) => unique.includes(role)),
    ...unique.filter((role) => !isBuiltInRole(role)).sort(),
  ];
}

/**
 * The roles the role map gives to these groups (LETHE_OIDC_ROLE_MAP), built-in first; a mapped role that
 * does not exist (a custom role deleted since) gives nothing.
 */
export async function rolesOfGroups(
  db: Queryable,
  groups: readonly string[],
  roleMap: Readonly<Record<string, readonly string[]>>,
): Promise<string[]> {
  const mapped = [...new Set(groups.flatMap((group) => roleMap[group] ?? []))];
  const custom = new Set(
    (
      await roleRepository.findMany(
        db,
        mapped.filter((role) => !isBuiltInRole(role)),
      )
    ).map((role) => role.name),
  );
  return [
    ...ROLES.filter((role) => mapped.includes(role)),
    ...mapped.filter((role) => custom.has(role)).sort(),
  ];
}

function toView(row: RoleRow): RoleView {
  return {
    name: row.name,
    scopes: row.scopes,
    description: row.description,
    built_in: false,
    updated_by: row.updated_by,
    updated_at: row.updated_at.toISOString(),
  };
}
