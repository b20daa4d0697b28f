// The per-address throttle of the public endpoints (submission, verification, resend, and the page's
// forms): LETHE_PUBLIC_REQUESTS_PER_MINUTE calls a minute from one address, counted where every API
// process sees them (the rate-limit store of src/rate-limits/key-limiter.ts), then 429 with Retry-After.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { tooManyRequests } from '../errors.ts';
import { createAddressCounter } from '../rate-limits/address-throttle.ts';

export type PublicThrottle = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

export async function createPublicThrottle(
  app: FastifyInstance,
  config: Pick<Config, 'redisUrl' | 'databaseUrl' | 'redisKeyPrefix' | 'publicRequestsPerMinute'>,
  db: Database,
): Promise<PublicThrottle> {
  const count = await createAddressCounter(
    app,
    config,
    db,
    'public-request',
    () => config.publicRequestsPerMinute,
  );
  return async (request, reply) => {
    const state = await count(request);
    if (!state.exceeded) return;
    const retryAfter = Math.max(1, state.resetSeconds);
    reply.header('retry-after', String(retryAfter));
    throw tooManyRequests(`Too many privacy requests from this address; retry in ${retryAfter} seconds.`, {
      key: 'refusal.retry_in',
      values: { seconds: retryAfter },
    });
  };
}
