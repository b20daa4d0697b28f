// Operator accounts: people who sign in (with a password, or through the company's identity provider) and
// act with the scopes of their roles, built-in or custom (role-service.ts). Owns the operators table and
// the password rules; sign-in and sessions are sign-in.ts's, the identity provider's accounts
// provider-accounts.ts's. A password is hashed here and never returned, logged or audited. Deleting an
// operator ends their sessions and disables the clients acting for them, in the same transaction.
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import { grants, principalName } from '../auth/scopes.ts';
import { type AuthService, operatorAccess } from '../auth/service.ts';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../crypto/password.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict, forbidden, invalid, notFound } from '../errors.ts';
import { isEmailAddress } from '../validation/email.ts';
import { MAX_OPERATOR_EMAIL_LENGTH, type OperatorView, toView, USERNAME_PATTERN } from './account.ts';
import { ProviderAccounts } from './provider-accounts.ts';
import { type OperatorRow, operatorRepository } from './repository.ts';
import { knownRoles, scopesOfRoles } from './role-service.ts';
import { canonicalPassword, hashingInTurn, OperatorSignIn } from './sign-in.ts';

export class OperatorService {
  readonly #db: Database;
  /** Password sign-in and the sessions of operators. */
  readonly signIn: OperatorSignIn;
  /** The identity provider's accounts (src/sso/, src/scim/). */
  readonly providerAccounts: ProviderAccounts;

  constructor(
    db: Database,
    auth: AuthService,
    options: { passwordLogin?: boolean; roleMap?: Record<string, string[]> } = {},
  ) {
    this.#db = db;
    this.signIn = new OperatorSignIn(db, auth, options.passwordLogin ?? true);
    this.providerAccounts = new ProviderAccounts(db, options.roleMap ?? {});
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
    input: { email?: string | null; roles?: readonly string[]; digest?: boolean },
  ): Promise<OperatorView> {
    const email = checkEmail(input.email);
    if (input.roles?.length === 0) throw invalid('body.roles must name at least one role.');
    return this.#db.transaction(async (tx) => {
      const row = await operatorRepository.lock(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      await checkHoldsScopesOf(tx, by, row, 'change');
      const roles = input.roles === undefined ? undefined : await knownRoles(tx, input.roles, 'body.roles');
      if (roles) await checkMayGive(tx, by, roles);
      if (input.email === undefined && roles === undefined && input.digest === undefined) return toView(row);
      let updated = await operatorRepository.update(tx, username, {
        email: input.email === undefined ? undefined : email,
        roles,
      });
      if (input.digest !== undefined)
        updated = await operatorRepository.setDigest(tx, username, input.digest);
      if (!updated) throw notFound(`No operator named ${username}.`);
      if (roles) await operatorAccess.rescope(tx, username, await scopesOfRoles(tx, roles));
      await recordChange(tx, by, 'operator.update', {
        username,
        ...(input.email === undefined ? {} : { email_set: email !== null }),
        ...(roles ? { roles } : {}),
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
      const row = await operatorRepository.lock(tx, username);
      if (!row) throw notFound(`No operator named ${username}.`);
      await checkHoldsScopesOf(tx, by, row, 'delete');
      const { clients } = await operatorAccess.revoke(tx, username);
      if (!(await operatorRepository.remove(tx, username))) throw notFound(`No operator named ${username}.`);
      await recordChange(tx, by, 'operator.delete', { username, clients_disabled: clients });
    });
  }
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
