// Brute-force throttle per client address. Failed management token requests (wrong client id or
// secret), failed operator logins (wrong username or password) and failed API-key authentications (unknown, malformed or revoked key) count against the
// caller's address; once it has LETHE_AUTH_FAILURES_PER_MINUTE (default 10) in its one-minute window, every attempt
// from it to authenticate answers 429 with Retry-After until the window ends, a correct secret included
// (otherwise a guesser would still learn which guess was right). A failure is counted before it is
// answered, and answered from the count (401 within the limit, 429 past it), so concurrent guesses get
// no more 401s than the limit. Operator logins, which hash a password, are also counted in flight before
// the hash (holdAttempt), so a burst from one address starts at most the limit of hashes. Successes never count, and other addresses are not affected. The
// counters are the per-key rate limit's (src/rate-limits/key-limiter.ts:
// memory, PostgreSQL or Redis), under keys `auth-failure:<address>`. Never sees a secret.
import { isIPv6 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { createKeyRateLimiter } from './key-limiter.ts';
import type { Database } from '../db/database.ts';
import { tooManyRequests } from '../errors.ts';

export interface AddressThrottle {
  /** 429 (with Retry-After on `reply`) while the caller's address is blocked; counts nothing. */
  assertNotBlocked(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /**
   * Counts one failed authentication of the caller's address, then answers what the caller throws:
   * `failure` while the address is within its limit, else the 429 of a blocked address. The count is one
   * atomic increment and the answer is decided from its result, so concurrent failures cannot all read
   * the same count: at most the limit of them are answered with `failure` in a window.
   */
  chargeFailure(request: FastifyRequest, reply: FastifyReply, failure: Error): Promise<Error>;
  /**
   * For checks that cost a slow hash (operator logins): 429 while the address is blocked, and also while
   * its failures in the window plus its attempts in flight in this process reach the limit; otherwise the
   * attempt is counted as in flight until `release` (call it after chargeFailure on a failure). So the
   * attempt is counted before its password is hashed, and concurrent guesses from one address cannot
   * start more hashes than the limit allows (with P API processes, at most P times the limit).
   */
  holdAttempt(request: FastifyRequest, reply: FastifyReply): Promise<() => void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    addressThrottle: AddressThrottle;
  }
}

/**
 * The address a failure is charged to. An IPv6 client usually holds a whole /64, so its failures count
 * against the /64; an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function throttledAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1] as string;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = [
    ...headGroups,
    ...Array(8 - headGroups.length - tailGroups.length).fill('0'),
    ...tailGroups,
  ];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * A counter per throttled address (keys `<prefix>:<address>`, limit `limitOf()` a minute), registered in
 * its own scope of `app`; the public endpoints' throttle (src/privacy-center/throttle.ts) counts with one too.
 */
export async function createAddressCounter(
  app: FastifyInstance,
  config: Pick<Config, 'redisUrl' | 'databaseUrl' | 'redisKeyPrefix'>,
  db: Database,
  prefix: string,
  limitOf: () => number,
) {
  let counter: Awaited<ReturnType<typeof createKeyRateLimiter>> | undefined;
  await app.register(async (scope) => {
    counter = await createKeyRateLimiter(
      scope,
      config,
      db,
      (request) => `${prefix}:${throttledAddress(request.ip)}`,
      limitOf,
    );
  });
  return counter as NonNullable<typeof counter>;
}

/** The 429 of a blocked address, its Retry-After set on `reply`. */
export function addressBlocked(reply: FastifyReply, resetSeconds: number): Error {
  const retryAfter = Math.max(1, resetSeconds);
  reply.header('retry-after', String(retryAfter));
  return tooManyRequests(
    `Too many failed authentications from this address; retry in ${retryAfter} seconds.`,
  );
}

/** Registers the counter in its own scope of `app` and decorates `app.addressThrottle`. */
export async function registerAddressThrottle(
  app: FastifyInstance,
  config: Pick<Config, 'redisUrl' | 'databaseUrl' | 'redisKeyPrefix' | 'authFailuresPerMinute'>,
  db: Database,
) {
  const count = await createAddressCounter(
    app,
    config,
    db,
    'auth-failure',
    () => config.authFailuresPerMinute,
  );
  /** Attempts started and not yet answered, per throttled address, in this process. */
  const inFlight = new Map<string, number>();
  app.decorate<AddressThrottle>('addressThrottle', {
    async holdAttempt(request, reply) {
      const address = throttledAddress(request.ip);
      let failures = 0;
      let resetSeconds = 60;
      try {
        const state = await count(request, { count: false });
        failures = state.limit - state.remaining;
        if (state.resetSeconds > 0) resetSeconds = state.resetSeconds;
      } catch (error) {
        // Fails open on the shared count as assertNotBlocked does; the in-flight count still holds.
        request.log.warn(
          { err: error },
          'authentication throttle store unavailable; counting in flight only',
        );
      }
      // Checked and counted in one turn of the event loop: concurrent attempts cannot all pass one count.
      const held = inFlight.get(address) ?? 0;
      if (failures + held >= config.authFailuresPerMinute) throw addressBlocked(reply, resetSeconds);
      inFlight.set(address, held + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (inFlight.get(address) ?? 1) - 1;
        if (left > 0) inFlight.set(address, left);
        else inFlight.delete(address);
      };
    },
    async assertNotBlocked(request, reply) {
      let state: Awaited<ReturnType<typeof count>>;
      try {
        state = await count(request, { count: false });
      } catch (error) {
        // Fails open: the secrets it protects are random (192 bits and more), so the throttle is defence
        // in depth, and failing closed would lock every operator out of /v1 while Redis is down. /api
        // still answers 503 from the per-key limit in that case.
        request.log.warn({ err: error }, 'authentication throttle store unavailable; not throttling');
        return;
      }
      if (state.remaining === 0) throw addressBlocked(reply, state.resetSeconds);
    },
    async chargeFailure(request, reply, failure) {
      let state: Awaited<ReturnType<typeof count>>;
      try {
        state = await count(request);
      } catch (error) {
        request.log.warn({ err: error }, 'could not count a failed authentication');
        return failure;
      }
      return state.exceeded ? addressBlocked(reply, state.resetSeconds) : failure;
    },
  });
}
