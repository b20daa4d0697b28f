// The checks every /api call passes before its handler, decided in this order: the caller's address not
// blocked for failed authentications (429), maintenance (503 + Retry-After), the API key (401, counted
// against the address), the key's rate limit (429 + Retry-After, RateLimit-*), then the datastore header
// (keys.ts: 400, 403, 404).
//
// When the counters live in PostgreSQL, the address's failures, the key, whether the named datastore
// exists and the count of the call against the key are one statement: the count is only made when the
// key's digest matches and the address is not blocked, which is exactly when the checks before it pass.
// One round trip instead of three statements on the hot path of every call. What it decided is cached
// for at most a second (admission-cache.ts: dropped at once on a revocation, a datastore deletion or a
// failure from the address, and in other processes through LISTEN/NOTIFY), and the calls admitted from
// the cache are counted in this process and flushed to the shared counter in batches
// (src/rate-limits/local-counter.ts, which states the bound on over-admission across processes): a
// repeated call of a key needs no statement before its handler. With Redis or in-memory counters
// (src/rate-limits/key-limiter.ts, the embedded default) the same checks run one after the other; the
// key's verification is cached the same way, the address check and the count are the counter store's.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { digest, matchesDigest } from '../crypto/credentials.ts';
import { AdmissionCache, listenForKeyChanges } from './admission-cache.ts';
import { LocalKeyCounter } from '../rate-limits/local-counter.ts';
import type { Database } from '../db/database.ts';
import { unavailable, unauthorized } from '../errors.ts';
import { addressBlocked, throttledAddress } from '../rate-limits/address-throttle.ts';
import {
  countHitsStatement,
  readWindowStatement,
  WITHOUT_FLUSH_WAIT,
  windowEndingAfter,
} from '../rate-limits/counters.ts';
import type { DatastoreAdminService } from '../datastore/admin-service.ts';
import {
  type ApiKeyPrincipal,
  authenticateApiKey,
  DATASTORE_NAME_PATTERN,
  INVALID_KEY_MESSAGE,
  parseApiKey,
  presentedKey,
} from './keys.ts';
import {
  applyRateLimit,
  createKeyRateLimiter,
  DEFAULT_REQUESTS_PER_MINUTE,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitState,
  rateLimitBackend,
  rateLimitState,
} from '../rate-limits/key-limiter.ts';

const MAINTENANCE_RETRY_AFTER_SECONDS = 60;

interface AdmissionRow {
  failures: number | null;
  failures_ttl_ms: number | null;
  id: string | null;
  name: string | null;
  datastores: string[] | null;
  rate_limit_per_minute: number | null;
  secret_digest: Uint8Array | null;
  datastore_exists: boolean | null;
  hits: number | null;
  ttl_ms: number | null;
}

/** See the head of this file. The count commits without waiting for the WAL flush, see rate-limits/counters.ts. */
const ADMISSION_SQL = `
  WITH failures AS (${readWindowStatement('$1')}
  ), presented AS (
    SELECT k.id, k.name, k.datastores, k.rate_limit_per_minute, k.secret_digest,
           EXISTS (SELECT 1 FROM datastores WHERE name = $3) AS datastore_exists
      FROM api_keys k WHERE k.id = $2
  ), counted AS (
    ${countHitsStatement(`SELECT p.id, 1, ${windowEndingAfter('$6')}
      FROM presented p, ${WITHOUT_FLUSH_WAIT}
     WHERE p.secret_digest = $4 AND coalesce((SELECT hits FROM failures), 0) < $5`)}
  )
  SELECT (SELECT hits FROM failures) AS failures, (SELECT ttl_ms FROM failures) AS failures_ttl_ms,
         p.id, p.name, p.datastores, p.rate_limit_per_minute, p.secret_digest, p.datastore_exists,
         c.hits, c.ttl_ms
    FROM (SELECT 1) AS one
    LEFT JOIN presented p ON true
    LEFT JOIN counted c ON true`;

/** Registers what the gate needs on `scope` and answers the function the /api onRequest hook calls. */
export async function createApiGate(
  scope: FastifyInstance,
  deps: { config: Config; db: Database; admin: DatastoreAdminService },
): Promise<(request: FastifyRequest, reply: FastifyReply) => Promise<ApiKeyPrincipal>> {
  const { config, db, admin } = deps;
  const countRequest = await createKeyRateLimiter(
    scope,
    config,
    db,
    (request) => (request.apiKey as ApiKeyPrincipal).id,
    (request) => request.apiKey?.rateLimitPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
  );
  const throttle = scope.addressThrottle;
  const admissions = new AdmissionCache();
  const counter = new LocalKeyCounter(db, RATE_LIMIT_WINDOW_MS, scope.log);

  /** A failed key: counted against the address first, then 401 (or 429 once the address is past its limit). */
  const rejectKey = async (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
    admissions.forgetAddress(throttledAddress(request.ip));
    const answer = await throttle.chargeFailure(
      request,
      reply,
      error instanceof Error ? error : unauthorized(INVALID_KEY_MESSAGE),
    );
    if (answer === error) reply.header('www-authenticate', 'Bearer');
    return answer;
  };
  const assertNotInMaintenance = async (reply: FastifyReply) => {
    if ((await admin.maintenance()).enabled) {
      reply.header('retry-after', String(MAINTENANCE_RETRY_AFTER_SECONDS));
      throw unavailable('The subject data API is in maintenance; try again later.');
    }
  };

  /**
   * The key's principal, from the cache when this key was verified from this address for this datastore
   * within the last second, else read (and then cached when the datastore exists). Throws at once when no
   * key, or two different ones, were sent.
   */
  const verifyKey = (request: FastifyRequest): Promise<ApiKeyPrincipal> => {
    const key = presentedKey(request.headers);
    const presented = parseApiKey(key);
    const header = request.headers.datastore;
    const datastore = typeof header === 'string' ? header.trim() : '';
    const address = throttledAddress(request.ip);
    const cached = presented && admissions.find(presented.id, address, datastore);
    if (cached && presented && matchesDigest(presented.secret, cached.secretDigest)) {
      return Promise.resolve(cached.principal);
    }
    return authenticateApiKey(db, key, header).then((principal) => {
      if (presented && principal.prefetchedDatastore?.exists) {
        admissions.remember(address, datastore, principal, digest(presented.secret));
      }
      return principal;
    });
  };

  /** Redis or in-memory counters: the checks one after the other (the key read beside the address's). */
  const admitStepByStep = async (request: FastifyRequest, reply: FastifyReply): Promise<ApiKeyPrincipal> => {
    let lookup: Promise<ApiKeyPrincipal> | undefined;
    let unreadable: unknown;
    try {
      lookup = verifyKey(request);
      lookup.catch(() => undefined);
    } catch (error) {
      unreadable = error;
    }
    await throttle.assertNotBlocked(request, reply);
    await assertNotInMaintenance(reply);
    if (!lookup) {
      // No key, or two different ones: not a guess, so not counted against the address.
      reply.header('www-authenticate', 'Bearer');
      throw unreadable;
    }
    let principal: ApiKeyPrincipal;
    try {
      principal = await lookup;
    } catch (error) {
      throw await rejectKey(request, reply, error);
    }
    request.apiKey = principal;
    let limit: RateLimitState;
    try {
      limit = await countRequest(request);
    } catch (error) {
      request.log.warn({ err: error }, 'rate-limit store unavailable');
      reply.header('retry-after', '5');
      throw unavailable('The rate-limit store is unavailable; try again shortly.');
    }
    applyRateLimit(reply, limit);
    return principal;
  };

  /** PostgreSQL counters: one statement (see ADMISSION_SQL), decided in the same order. */
  const admitInOneStatement = async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<ApiKeyPrincipal> => {
    let presented: { id: string; secret: string } | undefined;
    try {
      presented = parseApiKey(presentedKey(request.headers));
    } catch {
      // A missing or doubled key: the step-by-step path answers it, after the address check.
    }
    if (!presented || (await admin.maintenance()).enabled) return admitStepByStep(request, reply);
    const header = request.headers.datastore;
    const datastore = typeof header === 'string' ? header.trim() : '';
    const address = throttledAddress(request.ip);
    const cached = admissions.find(presented.id, address, datastore);
    if (cached && matchesDigest(presented.secret, cached.secretDigest)) {
      const limit = cached.principal.rateLimitPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE;
      const counted = counter.count(cached.principal.id, limit);
      if (counted) {
        request.apiKey = cached.principal;
        applyRateLimit(reply, rateLimitState(limit, counted.hits, counted.ttlMs));
        return cached.principal;
      }
    }
    const { rows } = await db.query<AdmissionRow>(ADMISSION_SQL, [
      `auth-failure:${address}`,
      presented.id,
      datastore,
      digest(presented.secret),
      config.authFailuresPerMinute,
      RATE_LIMIT_WINDOW_MS,
    ]);
    const row = rows[0] as AdmissionRow;
    if ((row.failures ?? 0) >= config.authFailuresPerMinute) {
      throw addressBlocked(reply, Math.ceil((row.failures_ttl_ms ?? 0) / 1000));
    }
    if (!row.id || !row.secret_digest || !matchesDigest(presented.secret, row.secret_digest)) {
      throw await rejectKey(request, reply, unauthorized(INVALID_KEY_MESSAGE));
    }
    if (row.hits === null || row.ttl_ms === null) throw new Error('a valid API key call was not counted');
    const principal: ApiKeyPrincipal = {
      id: row.id,
      name: row.name as string,
      datastores: row.datastores ?? [],
      rateLimitPerMinute: row.rate_limit_per_minute,
      ...(DATASTORE_NAME_PATTERN.test(datastore)
        ? { prefetchedDatastore: { name: datastore, exists: Boolean(row.datastore_exists) } }
        : {}),
    };
    request.apiKey = principal;
    const hits = counter.observe(principal.id, row.hits, row.ttl_ms);
    if (row.datastore_exists) admissions.remember(address, datastore, principal, row.secret_digest);
    const limit = rateLimitState(
      principal.rateLimitPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
      hits,
      row.ttl_ms,
    );
    applyRateLimit(reply, limit);
    return principal;
  };

  const stopListening = listenForKeyChanges(db.connectionString, admissions, scope.log);
  const stopHearing = admin.onKeysChanged((id) => admissions.forgetKey(id));
  scope.addHook('onClose', async () => {
    stopHearing();
    await stopListening();
    await counter.close();
  });
  return rateLimitBackend(config) === 'postgres' ? admitInOneStatement : admitStepByStep;
}
