// Operator accounts: people who sign in with a username and a password and act with the scopes of their
// roles (src/auth/scopes.ts). Owns the operators table and the password rules; tokens are issued by the
// auth service, which owns them. A password is hashed here and never returned, logged or audited.
import { type AuditOrigin, type ChangeActor, recordAudit, recordChange } from '../audit/audit-log.ts';
import { grants, principalName, type Role, ROLES, scopesOfRoles } from '../auth/scopes.ts';
import type { AuthService } from '../auth/service.ts';
import {
  hashOfNobody,
  hashPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  verifyPassword,
} from '../crypto/password.ts';
import { HashingBusy } from '../crypto/hash-turns.ts';
import type { Database } from '../db/database.ts';
import { conflict, forbidden, invalid, notFound, tooManyRequests, unauthorized } from '../errors.ts';
import { isEmailAddress } from '../validation/email.ts';
import { type OperatorRow, operatorRepository } from './repository.ts';

/** RFC 5321's practical bound on a path (254), tighter than the service-wide MAX_EMAIL_LENGTH. */
export const MAX_OPERATOR_EMAIL_LENGTH = 254;

/** Lower-case letters, digits, `.`, `_`, `@` and `-`; at most 100 characters. */
export const USERNAME_PATTERN = '^[a-z0-9][a-z0-9._@-]{0,99}$';

export interface OperatorView {
  username: string;
  roles: Role[];
  /** The operator's own work address (reminders go there); never logged nor audited. */
  email: string | null;
  digest: boolean;
  created_by: string;
  created_at: string;
}

export interface LoginAnswer {
  user_data: { username: string; roles: Role[] };
  token_data: { access_token: string; token_type: 'Bearer'; expires_in: number };
}

export class OperatorService {
  readonly #db: Database;
  readonly #auth: AuthService;

  constructor(db: Database, auth: AuthService) {
    this.#db = db;
    this.#auth = auth;
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
    const roles = checkRoles(input.roles);
    const email = checkEmail(input.email);
    const missing = scopesOfRoles(roles).filter((scope) => !grants(by.principal.scopes, scope));
    if (missing.length > 0) {
      throw forbidden(`You cannot give roles with scopes you do not hold: ${missing.join(', ')}.`);
    }
    const passwordHash = await hashingInTurn(() =>
      hashPassword(canonicalPassword(input.password), by.clientAddress ?? ''),
    );
    return this.#db.transaction(async (tx) => {
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
   * Sets or clears (null) the operator's email. Like deleting, it asks for every scope the operator holds:
   * a narrower account cannot redirect a broader one's reminders. The audit says that it changed, not to what.
   */
  async update(
    by: ChangeActor,
    username: string,
    input: { email?: string | null; digest?: boolean },
  ): Promise<OperatorView> {
    const email = checkEmail(input.email);
    return this.#db.transaction(async (tx) => {
      const row = await operatorRepository.find(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      checkHoldsScopesOf(by, row, 'change');
      if (input.email === undefined && input.digest === undefined) return toView(row);
      let updated: OperatorRow | undefined = row;
      if (input.email !== undefined) updated = await operatorRepository.setEmail(tx, username, email);
      if (input.digest !== undefined)
        updated = await operatorRepository.setDigest(tx, username, input.digest);
      if (!updated) throw notFound(`No operator named ${username}.`);
      await recordChange(tx, by, 'operator.update', {
        username,
        ...(input.email === undefined ? {} : { email_set: email !== null }),
        ...(input.digest === undefined ? {} : { digest: input.digest }),
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
      const row = await operatorRepository.find(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      checkHoldsScopesOf(by, row, 'delete');
      if (!(await operatorRepository.remove(tx, username))) throw notFound(`No operator named ${username}.`);
      await recordChange(tx, by, 'operator.delete', { username });
    });
  }

  /**
   * 401 for a wrong name or password alike (which one is not said), after the same work either way: one
   * hash per attempt. The sign-in is audited (who and from where, never the password or the token).
   */
  async login(input: { username: string; password: string }, origin?: AuditOrigin): Promise<LoginAnswer> {
    const username = input.username.trim().toLowerCase();
    const row = await operatorRepository.find(this.#db, username);
    const matches = await hashingInTurn(async () =>
      verifyPassword(
        canonicalPassword(input.password),
        row?.password_hash ?? (await hashOfNobody()),
        origin?.clientAddress ?? '',
      ),
    );
    if (!row || !matches) throw unauthorized('The username or password is not valid.');
    const roles = row.roles as Role[];
    const token = await this.#auth.issueOperatorToken(row.username, scopesOfRoles(roles));
    await recordAudit(this.#db, {
      action: 'operator.login',
      actor: `user:${row.username}`,
      ...origin,
      details: { username: row.username, roles },
    });
    return {
      user_data: { username: row.username, roles },
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

function checkHoldsScopesOf(by: ChangeActor, row: OperatorRow, verb: 'change' | 'delete') {
  const missing = scopesOfRoles(row.roles as Role[]).filter((scope) => !grants(by.principal.scopes, scope));
  if (missing.length > 0) {
    throw forbidden(`You cannot ${verb} an operator holding scopes you do not hold: ${missing.join(', ')}.`);
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

function checkRoles(roles: readonly string[]): Role[] {
  const unknown = roles.filter((role) => !(ROLES as readonly string[]).includes(role));
  if (unknown.length > 0) {
    throw invalid(`body.roles has unknown roles: ${unknown.join(', ')} (allowed: ${ROLES.join(', ')}).`);
  }
  if (roles.length === 0) throw invalid(`body.roles must name at least one role (${ROLES.join(', ')}).`);
  return ROLES.filter((role) => roles.includes(role));
}

function toView(row: OperatorRow): OperatorView {
  return {
    username: row.username,
    roles: row.roles as Role[],
    email: row.email,
    digest: row.digest,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
  };
}
