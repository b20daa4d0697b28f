// Management authentication: OAuth 2.0 client credentials, as Fides does it. Tokens are opaque random
// strings; only their digests are stored, so a database copy yields no usable token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { digest, generateSecret, matchesDigest, secretsEqual } from '../crypto/credentials.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { forbidden, invalid, notFound, unauthorized } from '../errors.ts';
import { clientRepository, tokenRepository } from './repository.ts';
import { type Principal, SCOPES } from './scopes.ts';

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
  async issueToken(clientId: string, clientSecret: string, requestedScope?: string) {
    const held = await this.#verifyClient(clientId, clientSecret);
    const requested = (requestedScope ?? '').split(' ').filter(Boolean);
    const beyond = requested.filter((scope) => !held.includes(scope));
    if (beyond.length > 0) throw new InvalidScopeError(beyond);
    const scopes = requested.length > 0 ? [...new Set(requested)] : held;
    const accessToken = `lat_${generateSecret()}`;
    await tokenRepository.insert(this.#db, {
      digest: secretsEqual(clientId, this.#root.id)
        ? this.#rootTokenDigest(accessToken)
        : digest(accessToken),
      clientId,
      scopes,
      ttlSeconds: this.#tokenTtlSeconds,
    });
    return {
      access_token: accessToken,
      token_type: 'Bearer' as const,
      expires_in: this.#tokenTtlSeconds,
      scope: scopes.join(' '),
    };
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
    // A root token narrowed by `scope` is no longer root: root-only acts need the whole root token.
    const isRoot = token.client_id === this.#root.id && SCOPES.every((scope) => token.scopes.includes(scope));
    return { clientId: token.client_id, scopes: token.scopes, isRoot };
  }

  #rootTokenDigest(token: string): Buffer {
    return createHmac('sha256', this.#rootTokenKey).update(token).digest();
  }

  async createClient(caller: Principal, input: { name?: string; scopes: string[] }) {
    this.#requireRoot(caller);
    const unknown = input.scopes.filter((scope) => !(SCOPES as readonly string[]).includes(scope));
    if (unknown.length > 0) throw invalid(`body.scopes has unknown scopes: ${unknown.join(', ')}.`);
    const secret = generateSecret();
    const row = await clientRepository.insert(this.#db, {
      id: `cli_${generateSecret(12)}`,
      name: input.name ?? '',
      secretDigest: digest(secret),
      scopes: [...new Set(input.scopes)],
    });
    return { ...toView(row), client_secret: secret };
  }

  async listClients(caller: Principal): Promise<ClientView[]> {
    this.#requireRoot(caller);
    return (await clientRepository.list(this.#db)).map(toView);
  }

  async deleteClient(caller: Principal, clientId: string) {
    this.#requireRoot(caller);
    await this.#db.transaction(async (tx) => {
      if (!(await clientRepository.remove(tx, clientId))) throw notFound(`No client with id ${clientId}.`);
      await tokenRepository.removeForClient(tx, clientId);
    });
  }

  #requireRoot(caller: Principal) {
    if (!caller.isRoot) throw forbidden('Only the root client may manage OAuth clients.');
  }
}

function toView(row: { id: string; name: string; scopes: string[]; created_at: Date }): ClientView {
  return { client_id: row.id, name: row.name, scopes: row.scopes, created_at: row.created_at.toISOString() };
}
