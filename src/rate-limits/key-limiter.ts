// Request counters through @fastify/rate-limit: the per-API-key limits, and the per-address count of failed
// authentications (src/rate-limits/address-throttle.ts). The counters live where every API process sees them:
// Redis when LETHE_REDIS_URL is set, else PostgreSQL when DATABASE_URL is set (one upsert per request),
// else in this process's memory (the embedded store serves one process anyway).
import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { tooManyRequests } from '../errors.ts';
import {
  countHitsStatement,
  readWindowStatement,
  WITHOUT_FLUSH_WAIT,
  windowEndingAfter,
} from './counters.ts';

export const DEFAULT_REQUESTS_PER_MINUTE = 60;
export const RATE_LIMIT_WINDOW_MS = 60_000;

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

/** Fixed windows in the rate_limit_counters table: one statement counts the hit and reports the window. */
const INCREMENT_SQL = countHitsStatement(
  `SELECT $1, 1, ${windowEndingAfter('$2')} FROM ${WITHOUT_FLUSH_WAIT}`,
);
const READ_SQL = readWindowStatement('$1');

function postgresStore(db: Database) {
  return class PostgresRateLimitStore implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ) {
      db.query<{ hits: number; ttl_ms: number }>(INCREMENT_SQL, [key, timeWindow]).then(
        ({ rows }) => callback(null, { current: rows[0]?.hits ?? 1, ttl: rows[0]?.ttl_ms ?? timeWindow }),
        (error: Error) => callback(error),
      );
    }

    /** The window's count without counting (`{ increment: false }`); 0 when no window is open. */
    read(key: string, callback: (error: Error | null, result?: { current: number; ttl: number }) => void) {
      db.query<{ hits: number; ttl_ms: number }>(READ_SQL, [key]).then(
        ({ rows }) => callback(null, { current: rows[0]?.hits ?? 0, ttl: rows[0]?.ttl_ms ?? 0 }),
        (error: Error) => callback(error),
      );
    }

    child() {
      return this;
    }
  };
}

export type RateLimitBackend = 'redis' | 'postgres' | 'memory';

export function rateLimitBackend(config: Pick<Config, 'redisUrl' | 'databaseUrl'>): RateLimitBackend {
  if (config.redisUrl) return 'redis';
  return config.databaseUrl ? 'postgres' : 'memory';
}

/**
 * Registers the limiter on `scope` and answers a function that counts one request of the key
 * `keyOf(request)` against `limitOf(request)` requests a minute; with `{ count: false }` it only reads
 * where the key's window stands.
 */
export async function createKeyRateLimiter(
  scope: FastifyInstance,
  config: Pick<Config, 'redisUrl' | 'databaseUrl' | 'redisKeyPrefix'>,
  db: Database,
  keyOf: (request: FastifyRequest) => string,
  limitOf: (request: FastifyRequest) => number,
): Promise<(request: FastifyRequest, options?: { count?: boolean }) => Promise<RateLimitState>> {
  const backend = rateLimitBackend(config);
  let redis: Redis | undefined;
  if (backend === 'redis') {
    // Loaded only here: without LETHE_REDIS_URL (the default) the client's 450 KB of modules stay unread.
    const { Redis } = await import('ioredis');
    redis = new Redis(config.redisUrl as string, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
    redis.on('error', (error) => scope.log.warn({ err: error }, 'rate-limit store (Redis) error'));
    scope.addHook('onClose', async () => {
      await redis?.quit();
    });
  }
  await scope.register(rateLimit, {
    global: false,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: keyOf,
    max: (request) => limitOf(request),
    ...(redis ? { redis, nameSpace: `${config.redisKeyPrefix}rate-limit:` } : {}),
    ...(backend === 'postgres' ? { store: postgresStore(db) } : {}),
  });
  const limiter = scope.createRateLimit();
  return async (request, options = {}) => {
    const result = await limiter(request, { increment: options.count ?? true });
    if (result.isAllowed) {
      return { limit: 0, remaining: 0, resetSeconds: 0, exceeded: false };
    }
    return {
      limit: result.max,
      remaining: result.remaining,
      resetSeconds: result.ttlInSeconds,
      exceeded: result.isExceeded,
    };
  };
}

/** Where a window stands after `hits` counted calls of a key allowed `limit` a minute. */
export function rateLimitState(limit: number, hits: number, ttlMs: number): RateLimitState {
  return {
    limit,
    remaining: Math.max(0, limit - hits),
    resetSeconds: Math.ceil(ttlMs / 1000),
    exceeded: hits > limit,
  };
}

/** The RateLimit-* headers of every counted call; 429 with Retry-After once the limit is passed. */
export function applyRateLimit(reply: FastifyReply, limit: RateLimitState): void {
  reply.header('ratelimit-limit', String(limit.limit));
  reply.header('ratelimit-remaining', String(limit.remaining));
  reply.header('ratelimit-reset', String(limit.resetSeconds));
  if (limit.exceeded) {
    reply.header('retry-after', String(limit.resetSeconds));
    throw tooManyRequests(
      `This API key exceeded its limit of ${limit.limit} requests a minute; retry in ${limit.resetSeconds} seconds.`,
    );
  }
}
