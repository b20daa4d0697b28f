// Management authentication: OAuth 2.0 client credentials, as Fides does it. Tokens are opaque random
// strings; only their digests are stored, so a database copy yields no usable token. Every token looked up
// is read from the database, so a sign-out (POST /v1/logout) ends the token in every API process at once.
// Token grants and sign-outs are audited (who, from where), never with a secret or a token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AuditOrigin, type ChangeActor, recordAudit, recordChange } from '../audit/audit-log.ts';
import { digest, generateSecret, matchesDigest, secretsEqual } from '../crypto/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/database.ts';
import { forbidden, invalid, notFound, unauthorized } from '../errors.ts';
import { type ClientRow, clientRepository, tokenRepository } from './repository.ts';
import { grants, type Principal, SCOPES } from './scopes.ts';

/**
 * The key root tokens are stored under: an HMAC of the root secret under a key derived from the encryption
 * key. Another root secret gives another key, so the root tokens issued before a rotation match nothing.
 */
function rootTokenKey(keyring: Keyring, secret: string): Buffer {
  return createHmac('sha256', keyring.secretKey('root-token-digest')).update(secret).digest();
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 6749 section 5.2: the token request names a scope that is unknown or beyond the client's. */
export class InvalidScopeError extends Error {
  override name = 'InvalidScopeError';

  constructor(scopes: readonly string[]) {
    const shown = scopes.map((scope) => JSON.stringify(scope.slice(0, 64))).join(', ');
    super(
      `scope names ${scopes.length === 1 ? 'a scope' : 'scopes'} this client does not hold or that do not exist: ${shown}.`,
    );
  }
}

export interface ClientView {
  client_id: string;
  name: string;
  scopes: string[];
  /** The person the client acts for: `user:<username>`, or `client:<id>` for the root client's and the CLI's. */
  acts_for: string;
  /** Set when the client was disabled (its operator was deactivated or deleted): it gets no token. */
  disabled_at: string | null;
  created_at: string;
}

export class AuthService {
  readonly #db: Database;
  readonly #root: { id: string; secret: string };
  /** Root tokens are stored under an HMAC keyed by this (see rootTokenKey), not under their SHA-256. */
  readonly #rootTokenKey: Buffer;
  readonly #tokenTtlSeconds: number;

  constructor(db: Database, root: { id: string; secret: string }, keyring: Keyring, tokenTtlSeconds: number) {
    this.#db = db;
    this.#root = root;
    this.#rootTokenKey = rootTokenKey(keyring, root.secret);
    this.#tokenTtlSeconds = tokenTtlSeconds;
  }

  /**
   * A token for the client, with every scope it holds or, when the request names a `scope` (RFC 6749
   * section 3.3: space-separated), only those: a narrower token for a narrower job. A scope the client does
   * not hold, or that does not exist, is invalid_scope (400), judged after the credentials.
   */
  async issueToken(clientId: string, clientSecret: string, requestedScope?: string, origin?: AuditOrigin) {
    const held = await this.#verifyClient(clientId, clientSecret);
    const requested = (requestedScope ?? '').split(' ').filter(Boolean);
    const beyond = requested.filter((scope) => !held.includes(scope));
    if (beyond.length > 0) throw new InvalidScopeError(beyond);
    const scopes = requested.length > 0 ? [...new Set(requested)] : held;
    const accessToken = await this.#newToken({ clientId }, scopes);
    await recordAudit(this.#db, {
      action: 'client.token',
      actor: `client:${clientId}`,
      ...origin,
      details: { client_id: clientId, scopes: scopes.length },
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer' as const,
      expires_in: this.#tokenTtlSeconds,
      scope: scopes.join(' '),
    };
  }

  /** A token for an operator whose password the operator service has just verified. */
  async issueOperatorToken(username: string, scopes: readonly string[]) {
    return {
      access_token: await this.#newToken({ username }, scopes),
      expires_in: this.#tokenTtlSeconds,
    };
  }

  async #newToken(holder: { clientId: string } | { username: string }, scopes: readonly string[]) {
    const accessToken = `lat_${generateSecret()}`;
    const isRootClient = 'clientId' in holder && secretsEqual(holder.clientId, this.#root.id);
    await tokenRepository.insert(this.#db, {
      digest: isRootClient ? this.#rootTokenDigest(accessToken) : digest(accessToken),
      holder,
      scopes,
      ttlSeconds: this.#tokenTtlSeconds,
    });
    return accessToken;
  }

  async #verifyClient(clientId: string, clientSecret: string): Promise<readonly string[]> {
    if (secretsEqual(clientId, this.#root.id)) {
      if (secretsEqual(clientSecret, this.#root.secret)) return SCOPES;
      throw unauthorized('The client credentials are not valid.');
    }
    const client = await clientRepository.find(this.#db, clientId);
    if (!client || !matchesDigest(clientSecret, client.secret_digest)) {
      throw unauthorized('The client credentials are not valid.');
    }
    if (client.disabled_at !== null) {
      throw unauthorized('This client is disabled: the operator who made it was deactivated.');
    }
    return client.scopes;
  }

  async authenticate(bearer: string | undefined): Promise<Principal> {
    if (!bearer) throw unauthorized('Authentication is required: send Authorization: Bearer <access_token>.');
    const rootDigest = this.#rootTokenDigest(bearer);
    const token = await tokenRepository.findLive(this.#db, [digest(bearer), rootDigest]);
    // A root token is valid only under the current root secret's digest and only as the current root
    // client's: after LETHE_ROOT_CLIENT_SECRET (or the root id) changes, the old root tokens are dead.
    const storedAsRoot = token !== undefined && sameBytes(rootDigest, token.token_digest);
    if (!token || storedAsRoot !== (token.client_id === this.#root.id)) {
      throw unauthorized('The access token is not valid or has expired.');
    }
    if (token.username !== null) {
      return {
        clientId: `user:${token.username}`,
        username: token.username,
        scopes: token.scopes,
        actsFor: `user:${token.username}`,
      };
    }
    // A root token narrowed by `scope` holds only those scopes: managing clients needs client:* in it.
    const clientId = token.client_id ?? '';
    return { clientId, scopes: token.scopes, actsFor: token.client_acts_for ?? `client:${clientId}` };
  }

  /**
   * Ends the presented token (POST /v1/logout): it is deleted, so every API process refuses it from the
   * next request on. The sign-out is audited under the holder's name, never with the token.
   */
  async endToken(bearer: string, origin: AuditOrigin): Promise<void> {
    const ended = await this.#db.transaction(async (tx) => {
      const holder = await tokenRepository.removeLive(tx, [digest(bearer), this.#rootTokenDigest(bearer)]);
      if (!holder) return false;
      await recordAudit(tx, {
        action: holder.username === null ? 'client.logout' : 'operator.logout',
        actor: holder.username === null ? `client:${holder.client_id ?? ''}` : `user:${holder.username}`,
        ...origin,
        details: holder.username === null ? { client_id: holder.client_id } : { username: holder.username },
      });
      return true;
    });
    if (!ended) throw unauthorized('The access token is not valid or has expired.');
  }

  #rootTokenDigest(token: string): Buffer {
    return createHmac('sha256', this.#rootTokenKey).update(token).digest();
  }

  /**
   * Creates a client (the caller needs `client:*`) holding a subset of the caller's own scopes: a client
   * can never be given more than its creator holds. The secret is answered once and stored as a digest.
   */
  async createClient(by: ChangeActor, input: { name?: string; scopes: string[] }) {
    requireScope(by.principal, 'client:*');
    const unknown = input.scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0) throw invalid(`body.scopes has unknown scopes: ${unknown.join(', ')}.`);
    const beyond = input.scopes.filter((scope) => !grants(by.principal.scopes, scope));
    if (beyond.length > 0) {
      throw forbidden(`You cannot give scopes you do not hold: ${beyond.join(', ')}.`);
    }
    const secret = generateSecret();
    const scopes = [...new Set(input.scopes)];
    const row = await this.#db.transaction(async (tx) => {
      const inserted = await clientRepository.insert(tx, {
        id: `cli_${generateSecret(12)}`,
        name: input.name ?? '',
        secretDigest: digest(secret),
        scopes,
        actsFor: by.principal.actsFor,
      });
      await recordChange(tx, by, 'client.create', { client_id: inserted.id, scopes });
      return inserted;
    });
    return { ...toView(row), client_secret: secret };
  }

  async listClients(caller: Principal): Promise<ClientView[]> {
    requireScope(caller, 'client:read');
    return (await clientRepository.list(this.#db)).map(toView);
  }

  /**
   * Deletes the client and revokes its tokens at once. The caller must hold every scope the client holds
   * (as for creating it): a narrower principal cannot remove a broader one.
   */
  async deleteClient(by: ChangeActor, clientId: string) {
    requireScope(by.principal, 'client:*');
    await this.#db.transaction(async (tx) => {
      const client = await clientRepository.find(tx, clientId);
      if (!client) throw notFound(`No client with id ${clientId}.`);
      const beyond = client.scopes.filter((scope) => !grants(by.principal.scopes, scope));
      if (beyond.length > 0) {
        throw forbidden(`You cannot delete a client holding scopes you do not hold: ${beyond.join(', ')}.`);
      }
      if (!(await clientRepository.remove(tx, clientId))) throw notFound(`No client with id ${clientId}.`);
      await tokenRepository.removeForClient(tx, clientId);
      await recordChange(tx, by, 'client.delete', { client_id: clientId });
    });
  }
}

/** What ends an operator's access: their sessions and the clients acting for them (see OperatorService). */
export const operatorAccess = {
  /** Gives the operator's live sessions the scopes of their new roles. */
  async rescope(tx: Queryable, username: string, scopes: readonly string[]): Promise<void> {
    await tokenRepository.rescopeOperator(tx, username, scopes);
  },

  /** Ends the operator's sessions and disables the clients acting for them, with those clients' tokens. */
  async revoke(tx: Queryable, username: string): Promise<{ sessions: number; clients: string[] }> {
    const sessions = await tokenRepository.removeForOperator(tx, username);
    const clients = await clientRepository.disableActingFor(tx, `user:${username}`);
    await tokenRepository.removeForClients(tx, clients);
    return { sessions, clients };
  },
};

function requireScope(caller: Principal, scope: string) {
  if (!grants(caller.scopes, scope)) throw forbidden(`Managing clients needs the scope ${scope}.`);
}

function toView(row: ClientRow): ClientView {
  return {
    client_id: row.id,
    name: row.name,
    scopes: row.scopes,
    acts_for: row.acts_for ?? `client:${row.id}`,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}
