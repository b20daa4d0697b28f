// API keys of the subject data API: `lk_<id>_<secret>`. Only the SHA-256 digest of the secret is stored;
// a presented key is looked up by its id and its secret compared in constant time. The /api calls read
// keys through gate.ts, which caches a verified key for at most a second (admission-cache.ts: a revoked
// key fails on its very next call in the process that revoked it, within a second everywhere).
import { randomBytes } from 'node:crypto';
import { digest, generateSecret, matchesDigest } from '../crypto/credentials.ts';
import type { Queryable } from '../db/database.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.ts';
import { datastoreRepository } from '../datastore/admin-repository.ts';
import { apiKeyRepository } from './repository.ts';

const KEY_FORMAT = /^lk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
export const DATASTORE_NAME = '^[a-z0-9][a-z0-9_-]{0,62}$';
export const DATASTORE_NAME_PATTERN = new RegExp(DATASTORE_NAME);
export const INVALID_KEY_MESSAGE = 'The API key is not valid or has been revoked.';

export interface ApiKeyPrincipal {
  id: string;
  name: string;
  datastores: string[];
  rateLimitPerMinute: number | null;
  /** Whether the datastore named when the key was read exists (read in the same statement as the key). */
  prefetchedDatastore?: { name: string; exists: boolean };
}

export function newApiKey(): { id: string; key: string; secretDigest: Buffer } {
  const id = randomBytes(8).toString('hex');
  const secret = generateSecret(32);
  return { id, key: `lk_${id}_${secret}`, secretDigest: digest(secret) };
}

/** The key from `api-key` or `Authorization: Bearer`; both present and different is refused. */
export function presentedKey(headers: Record<string, string | string[] | undefined>): string {
  const header = headers['api-key'];
  if (Array.isArray(header)) throw unauthorized('Send one api-key header.');
  const authorization = typeof headers.authorization === 'string' ? headers.authorization : undefined;
  const bearer = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  const fromHeader = header?.trim() || undefined;
  if (fromHeader && bearer && fromHeader !== bearer) {
    throw unauthorized('The api-key header and the Authorization bearer key differ; send one key.');
  }
  const key = fromHeader ?? bearer;
  if (!key)
    throw unauthorized('An API key is required: send it in the api-key header or as Authorization: Bearer.');
  return key;
}

/** The id and secret of a key in the `lk_<id>_<secret>` format; undefined for anything else. */
export function parseApiKey(key: string): { id: string; secret: string } | undefined {
  const match = KEY_FORMAT.exec(key);
  return match ? { id: match[1] as string, secret: match[2] as string } : undefined;
}

/**
 * The key's principal. With `datastoreHeader`, the same statement also reads whether that datastore
 * exists, for authorizeDatastore to use later without another round trip; nothing about the datastore is
 * decided or revealed here (the order of checks stays key, maintenance, rate limit, datastore).
 */
export async function authenticateApiKey(
  db: Queryable,
  key: string,
  datastoreHeader?: string | string[],
): Promise<ApiKeyPrincipal> {
  const presented = parseApiKey(key);
  const datastore = typeof datastoreHeader === 'string' ? datastoreHeader.trim() : '';
  const prefetch = DATASTORE_NAME_PATTERN.test(datastore);
  const row = !presented
    ? undefined
    : prefetch
      ? await apiKeyRepository.findWithDatastore(db, presented.id, datastore)
      : await apiKeyRepository.find(db, presented.id);
  if (!presented || !row || !matchesDigest(presented.secret, row.secret_digest)) {
    throw unauthorized(INVALID_KEY_MESSAGE);
  }
  return {
    id: row.id,
    name: row.name,
    datastores: row.datastores,
    rateLimitPerMinute: row.rate_limit_per_minute,
    ...(prefetch && 'datastore_exists' in row
      ? { prefetchedDatastore: { name: datastore, exists: Boolean(row.datastore_exists) } }
      : {}),
  };
}

/** The datastore named by the `datastore` header: 400 missing, 403 not granted, 404 not created. */
export async function authorizeDatastore(
  db: Queryable,
  principal: ApiKeyPrincipal,
  header: string | string[] | undefined,
): Promise<string> {
  if (Array.isArray(header)) throw badRequest('Send one datastore header.');
  const name = header?.trim();
  if (!name) throw badRequest('The datastore header is required: name the datastore the call acts on.');
  const granted = principal.datastores.includes('*') || principal.datastores.includes(name);
  const shown = JSON.stringify(name.slice(0, 100));
  if (!granted) throw forbidden(`This API key may not use the datastore ${shown}.`);
  const prefetched = principal.prefetchedDatastore;
  const exists =
    DATASTORE_NAME_PATTERN.test(name) &&
    (prefetched?.name === name ? prefetched.exists : await datastoreRepository.exists(db, name));
  if (!exists) {
    throw notFound(`The datastore ${shown} does not exist.`);
  }
  return name;
}
