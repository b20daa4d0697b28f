// Sign-in of operators: by password (POST /v1/login, unless LETHE_PASSWORD_LOGIN=false) and the session
// of a person the identity provider vouched for (src/sso/). Tokens are issued by the auth service, which
// owns them. A password is hashed in one canonical form and never returned, logged or audited.
import { type AuditOrigin, recordAudit } from '../audit/audit-log.ts';
import type { AuthService } from '../auth/service.ts';
import { hashOfNobody, verifyPassword } from '../crypto/password.ts';
import { HashingBusy } from '../crypto/hash-turns.ts';
import type { Database } from '../db/database.ts';
import { forbidden, tooManyRequests, unauthorized } from '../errors.ts';
import { operatorRepository } from './repository.ts';
import { scopesOfRoles } from './role-service.ts';

export interface LoginAnswer {
  user_data: { username: string; roles: string[] };
  token_data: { access_token: string; token_type: 'Bearer'; expires_in: number };
}

export class OperatorSignIn {
  readonly #db: Database;
  readonly #auth: AuthService;
  readonly #passwordLogin: boolean;

  constructor(db: Database, auth: AuthService, passwordLogin: boolean) {
    this.#db = db;
    this.#auth = auth;
    this.#passwordLogin = passwordLogin;
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
export async function hashingInTurn<T>(work: () => Promise<T>): Promise<T> {
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
