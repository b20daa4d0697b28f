// Operator accounts: people who sign in (with a password, or through the company's identity provider) and
// act with the scopes of their roles, built-in or custom (role-service.ts). Owns the operators table and
// the password rules; tokens are issued by the auth service, which owns them. A password is hashed here
// and never returned, logged or audited. Deleting or deactivating an operator ends their sessions and
// disables the clients acting for them, in the same transaction.
import { type AuditOrigin, type ChangeActor, recordAudit, recordChange } from '../audit/audit-log.ts';
import { grants, principalName } from '../auth/scopes.ts';
import { type AuthService, operatorAccess } from '../auth/service.ts';
import {
  hashOfNobody,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  verifyPassword,
} from '../crypto/password.ts';
import { HashingBusy } from '../crypto/hash-turns.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict, forbidden, invalid, notFound, tooManyRequests, unauthorized } from '../errors.ts';
import { isEmailAddress } from '../validation/email.ts';
import { type OperatorRow, operatorRepository } from './repository.ts';
import { knownRoles, rolesOfGroups, scopesOfRoles } from './role-service.ts';

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
  created_by: string;
  created_at: string;
}

export interface LoginAnswer {
  user_data: { username: string; roles: string[] };
  token_data: { access_token: string; token_type: 'Bearer'; expires_in: number };
}

export class OperatorService {
  readonly #db: Database;
  readonly #auth: AuthService;
  readonly #passwordLogin: boolean;
  readonly #roleMap: Readonly<Record<string, readonly string[]>>;

  constructor(
    db: Database,
    auth: AuthService,
    options: { passwordLogin?: boolean; roleMap?: Record<string, string[]> } = {},
  ) {
    this.#db = db;
    this.#auth = auth;
    this.#passwordLogin = options.passwordLogin ?? true;
    this.#roleMap = options.roleMap ?? {};
  }

  /**
   * The account of a person the identity provider vouched for (src/sso/): found by the provider's subject,
   * else a SCIM-provisioned account of the same username not yet linked (linked now), else made now, just
   * in time. Groups and roles are replaced by what the provider says at every sign-in (the groups of the
   * ID token with the SCIM groups). No mapped role refuses, and an existing account then loses its roles
   * and sessions; so does a deactivated one. A password account of the same name is never taken over.
   * Each outcome is audited; the person's claims are not.
   */
  async admitFromProvider(
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

  /** The session of a provider's operator whose one-time hand-off was just spent (src/sso/). */
  async startProviderSession(username: string, origin: AuditOrigin): Promise<LoginAnswer> {
    const row = await operatorRepository.find(this.#db, username);
    if (!row || !row.active || row.roles.length === 0) {
      throw unauthorized('This sign-in is no longer valid. Sign in again.');
    }
    return this.startSession(row.username, row.roles, 'oidc', origin);
  }

  /** Whether POST /v1/login takes passwords (LETHE_PASSWORD_LOGIN). */
  get passwordLogin(): boolean {
    return this.#passwordLogin;
  }

  /** Computes the unknown-user hash ahead, so that the first login of an unknown name is not slower. */
  async prepare(): Promise<void> {
    await hashOfNobody();
  }

  async create(
    by: ChangeActor,
    input: { username: string; password: string; roles: readonly string[]; email?: string | null },
  ): Promise<OperatorView> {
    const username = input.username.trim().toLowerCase();
    if (!new RegExp(USERNAME_PATTERN).test(username)) {
      throw invalid(
        'body.username must be 1 to 100 lower-case letters, digits, ".", "_", "@" or "-", starting with a letter or digit.',
      );
    }
    checkPassword(input.password);
    if (input.roles.length === 0) throw invalid('body.roles must name at least one role.');
    const email = checkEmail(input.email);
    const roles = await knownRoles(this.#db, input.roles, 'body.roles');
    await checkMayGive(this.#db, by, roles);
    const passwordHash = await hashingInTurn(() =>
      hashPassword(canonicalPassword(input.password), by.clientAddress ?? ''),
    );
    return this.#db.transaction(async (tx) => {
      await checkMayGive(tx, by, await knownRoles(tx, roles, 'body.roles'));
      const row = await operatorRepository.insert(tx, {
        username,
        passwordHash,
        roles,
        email,
        createdBy: principalName(by.principal),
      });
      if (!row) throw conflict(`An operator named ${username} already exists.`);
      await recordChange(tx, by, 'operator.create', { username, roles });
      return toView(row);
    });
  }

  /**
   * Sets or clears (null) the operator's email, and replaces their roles. Like deleting, it asks for every
   * scope the operator holds, and for every scope of the new roles: a narrower account cannot redirect a
   * broader one's reminders nor widen anyone. New roles take effect on the operator's live sessions at
   * once. The audit says that the email changed, not to what.
   */
  async update(
    by: ChangeActor,
    username: string,
    input: { email?: string | null; roles?: readonly string[] },
  ): Promise<OperatorView> {
    const email = checkEmail(input.email);
    if (input.roles?.length === 0) throw invalid('body.roles must name at least one role.');
    return this.#db.transaction(async (tx) => {
      const row = await operatorRepository.lock(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      await checkHoldsScopesOf(tx, by, row, 'change');
      const roles = input.roles === undefined ? undefined : await knownRoles(tx, input.roles, 'body.roles');
      if (roles) await checkMayGive(tx, by, roles);
      if (input.email === undefined && roles === undefined) return toView(row);
      const updated = await operatorRepository.update(tx, username, {
        email: input.email === undefined ? undefined : email,
        roles,
      });
      if (!updated) throw notFound(`No operator named ${username}.`);
      if (roles) await operatorAccess.rescope(tx, username, await scopesOfRoles(tx, roles));
      await recordChange(tx, by, 'operator.update', {
        username,
        ...(input.email === undefined ? {} : { email_set: email !== null }),
        ...(roles ? { roles } : {}),
      });
      return toView(updated);
    });
  }

  /** Whether any account exists; nothing more (no count, no name) leaves this method. */
  async anyExists(): Promise<boolean> {
    return operatorRepository.any(this.#db);
  }

  async list(): Promise<OperatorView[]> {
    return (await operatorRepository.list(this.#db)).map(toView);
  }

  /**
   * Deletes the operator and revokes their tokens at once. The caller must hold every scope the operator
   * holds (as for creating them): a narrower account cannot remove a broader one, e.g. the last owner.
   */
  async remove(by: ChangeActor, username: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      const row = await operatorRepository.lock(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      await checkHoldsScopesOf(tx, by, row, 'delete');
      const { clients } = await operatorAccess.revoke(tx, username);
      if (!(await operatorRepository.remove(tx, username))) throw notFound(`No operator named ${username}.`);
      await recordChange(tx, by, 'operator.delete', { username, clients_disabled: clients });
    });
  }

  /**
   * 401 for a wrong name or password alike (which one is not said), after the same work either way: one
   * hash per attempt. The sign-in is audited (who and from where, never the password or the token).
   */
  async login(input: { username: string; password: string }, origin?: AuditOrigin): Promise<LoginAnswer> {
    if (!this.#passwordLogin) {
      throw forbidden(
        "Password sign-in is turned off here (LETHE_PASSWORD_LOGIN=false): sign in through your company's identity provider.",
      );
    }
    const username = input.username.trim().toLowerCase();
    const row = await operatorRepository.find(this.#db, username);
    const matches = await hashingInTurn(async () =>
      verifyPassword(
        canonicalPassword(input.password),
        row?.password_hash ?? (await hashOfNobody()),
        origin?.clientAddress ?? '',
      ),
    );
    // A deactivated account, or one from the provider (no password), is refused like a wrong password.
    if (!row || !matches || row.password_hash === null || !row.active) {
      throw unauthorized('The username or password is not valid.');
    }
    const { roles } = row;
    return this.startSession(row.username, roles, 'password', origin);
  }

  /**
   * The session of an operator who has proven who they are (a password above, or the identity provider,
   * src/sso/): a token with the scopes of their roles, audited with how they signed in.
   */
  async startSession(
    username: string,
    roles: readonly string[],
    method: 'password' | 'oidc',
    origin?: AuditOrigin,
  ): Promise<LoginAnswer> {
    const row = { username, roles: [...roles] };
    const token = await this.#auth.issueOperatorToken(row.username, await scopesOfRoles(this.#db, roles));
    await recordAudit(this.#db, {
      action: 'operator.login',
      actor: `user:${row.username}`,
      ...origin,
      details: { username: row.username, roles, method },
    });
    return {
      user_data: { username: row.username, roles: row.roles },
      token_data: { access_token: token.access_token, token_type: 'Bearer', expires_in: token.expires_in },
    };
  }
}

/** 429 instead of a hash when too many are running and waiting (src/crypto/hash-turns.ts). */
async function hashingInTurn<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HashingBusy) throw tooManyRequests(error.message);
    throw error;
  }
}

/**
 * Fides' login takes the password base64-encoded, so scripts written for Fides send it that way. Trying
 * both forms would cost two hashes per attempt; instead a password is hashed, at creation and at login
 * alike, in one canonical form: decoded while it is well-formed base64 of printable text (a few rounds at
 * most). The clear password and its base64 form then give the same hash, and an attempt costs one.
 */
export function canonicalPassword(password: string): string {
  let current = password;
  for (let round = 0; round < 4; round += 1) {
    const decoded = fidesDecoded(current);
    if (decoded === undefined) break;
    current = decoded;
  }
  return current;
}

function fidesDecoded(password: string): string | undefined {
  if (password.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(password)) return undefined;
  const decoded = Buffer.from(password, 'base64').toString('utf8');
  if (decoded.length === 0 || decoded.includes('\uFFFD') || /\p{Cc}/u.test(decoded)) return undefined;
  return decoded;
}

function checkPassword(password: string) {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw invalid(`body.password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  }
  if (password.length > MAX_PASSWORD_LENGTH) {
    throw invalid(`body.password must be at most ${MAX_PASSWORD_LENGTH} characters long.`);
  }
}

async function checkHoldsScopesOf(
  db: Queryable,
  by: ChangeActor,
  row: OperatorRow,
  verb: 'change' | 'delete',
) {
  const held = await scopesOfRoles(db, row.roles);
  const missing = held.filter((scope) => !grants(by.principal.scopes, scope));
  if (missing.length > 0) {
    throw forbidden(`You cannot ${verb} an operator holding scopes you do not hold: ${missing.join(', ')}.`);
  }
}

/** 403 unless the caller holds every scope of the roles they give. */
async function checkMayGive(db: Queryable, by: ChangeActor, roles: readonly string[]) {
  const missing = (await scopesOfRoles(db, roles)).filter((scope) => !grants(by.principal.scopes, scope));
  if (missing.length > 0) {
    throw forbidden(`You cannot give roles with scopes you do not hold: ${missing.join(', ')}.`);
  }
}

/** Null when absent, empty or null (no address); otherwise a trimmed email address of at most 254 characters. */
function checkEmail(email: string | null | undefined): string | null {
  const trimmed = email?.trim() ?? '';
  if (trimmed === '') return null;
  if (trimmed.length > MAX_OPERATOR_EMAIL_LENGTH) {
    throw invalid(`body.email must have at most ${MAX_OPERATOR_EMAIL_LENGTH} characters.`);
  }
  if (!isEmailAddress(trimmed)) throw invalid('body.email must be an email address.');
  return trimmed;
}

export function toView(row: OperatorRow): OperatorView {
  return {
    username: row.username,
    roles: row.roles,
    email: row.email,
    provider: row.provider,
    groups: row.groups,
    active: row.active,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}
