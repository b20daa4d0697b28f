// Brute-force throttle per client address (src/rate-limits/address-throttle.ts), on the store the suite runs on
// (the rate_limit_counters table) and on Redis. Clients call
// from distinct loopback addresses (127.0.0.x) so each case has an address of its own.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Config } from '../../src/config.ts';
import { throttledAddress } from '../../src/rate-limits/address-throttle.ts';
import { createDatastore, issueKey } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const LIMIT = 10;

/** fetch from a given local address. */
function clientAt(address: string) {
  const dispatcher = new Agent({ localAddress: address });
  return {
    fetch: (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
      undiciFetch(url, { ...init, dispatcher }),
    close: () => dispatcher.close(),
  };
}

function throttleSuite(
  name: string,
  overrides: Pick<Partial<Config>, 'redisUrl' | 'redisKeyPrefix' | 'databaseUrl'>,
) {
  describe(name, () => {
    let service: TestService;
    let root: { id: string; secret: string };
    let apiKey: string;
    const clients: ReturnType<typeof clientAt>[] = [];
    const at = (address: string) => {
      const client = clientAt(address);
      clients.push(client);
      return client;
    };
    const tokenRequest = (client: ReturnType<typeof clientAt>, secret: string) =>
      client.fetch(`${service.url}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: root.id,
          client_secret: secret,
        }).toString(),
      });
    const apiRequest = (client: ReturnType<typeof clientAt>, key: string | undefined) =>
      client.fetch(`${service.url}/api/entity/get-by-id`, {
        method: 'POST',
        headers: {
          ...(key ? { 'api-key': key } : {}),
          datastore: 'guarded',
          'content-type': 'application/json',
        },
        body: JSON.stringify(['00000000-0000-4000-8000-000000000000']),
      });

    before(async () => {
      service = await startTestService({ authFailuresPerMinute: LIMIT, ...overrides });
      root = service.config.rootClient as { id: string; secret: string };
      await createDatastore(service, 'guarded');
      apiKey = (await issueKey(service, ['guarded'], { rate_limit_per_minute: 1000 })).key;
    });
    after(async () => {
      await Promise.all(clients.map((client) => client.close()));
      await service.stop();
    });

    it('refuses token requests from an address after 10 wrong secrets, its right secret too; others unaffected', async () => {
      const attacker = at('127.0.0.2');
      for (let attempt = 1; attempt <= LIMIT; attempt += 1) {
        const answer = await tokenRequest(attacker, `wrong-${attempt}`);
        assert.equal(answer.status, 401, `attempt ${attempt}`);
      }
      const blocked = await tokenRequest(attacker, 'wrong-again');
      assert.equal(blocked.status, 429);
      const retryAfter = Number(blocked.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.match(((await blocked.json()) as { detail: string }).detail, /Too many failed authentications/);
      assert.equal(
        (await tokenRequest(attacker, root.secret)).status,
        429,
        'the right secret is refused too',
      );
      assert.equal((await apiRequest(attacker, apiKey)).status, 429, 'and so is a valid API key');

      const neighbour = at('127.0.0.3');
      assert.equal((await tokenRequest(neighbour, root.secret)).status, 200);
      assert.equal((await apiRequest(neighbour, apiKey)).status, 200);
    });

    it('never counts successes: many good token requests, then 9 failures, still lets the right secret in', async () => {
      const busy = at('127.0.0.4');
      for (let attempt = 0; attempt < 2 * LIMIT; attempt += 1) {
        assert.equal((await tokenRequest(busy, root.secret)).status, 200);
      }
      for (let attempt = 0; attempt < LIMIT - 1; attempt += 1) {
        assert.equal((await tokenRequest(busy, 'wrong')).status, 401);
      }
      assert.equal((await tokenRequest(busy, root.secret)).status, 200);
      assert.equal((await tokenRequest(busy, 'wrong')).status, 401, 'the tenth failure is still answered');
      assert.equal((await tokenRequest(busy, root.secret)).status, 429);
    });

    it('refuses API calls from an address after 10 unknown keys; a missing key is not a guess', async () => {
      const prober = at('127.0.0.5');
      for (let attempt = 0; attempt < 2 * LIMIT; attempt += 1) {
        assert.equal((await apiRequest(prober, undefined)).status, 401, 'no key: 401, not counted');
      }
      assert.equal((await apiRequest(prober, apiKey)).status, 200);
      const [, id] = apiKey.split('_') as [string, string];
      for (let attempt = 0; attempt < LIMIT; attempt += 1) {
        const forged =
          attempt % 2 === 0 ? `lk_${id}_${randomBytes(32).toString('base64url')}` : `guess-${attempt}`;
        assert.equal((await apiRequest(prober, forged)).status, 401, `attempt ${attempt}`);
      }
      const blocked = await apiRequest(prober, apiKey);
      assert.equal(blocked.status, 429);
      assert.match(blocked.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(
        await blocked.text(),
        /Too many failed authentications from this address; retry in \d+ seconds\./,
      );
      assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
      assert.equal((await apiRequest(at('127.0.0.6'), apiKey)).status, 200, 'another address');
    });

    it('counts token and API-key failures of one address together', async () => {
      const mixed = at('127.0.0.7');
      for (let attempt = 0; attempt < LIMIT / 2; attempt += 1) {
        assert.equal((await tokenRequest(mixed, 'wrong')).status, 401);
        assert.equal((await apiRequest(mixed, `guess-${attempt}`)).status, 401);
      }
      assert.equal((await tokenRequest(mixed, root.secret)).status, 429);
    });

    it('answers at most 10 of 150 concurrent wrong API keys or client secrets with 401, the rest 429', async () => {
      const [, id] = apiKey.split('_') as [string, string];
      for (const [address, attempt] of [
        [
          '127.0.0.8',
          (client: ReturnType<typeof clientAt>, index: number) =>
            apiRequest(client, `lk_${id}_${randomBytes(32).toString('base64url')}${index}`),
        ],
        [
          '127.0.0.9',
          (client: ReturnType<typeof clientAt>, index: number) => tokenRequest(client, `wrong-${index}`),
        ],
      ] as const) {
        const racer = at(address);
        const statuses = await Promise.all(
          Array.from({ length: 150 }, (_, index) => attempt(racer, index).then((answer) => answer.status)),
        );
        const unauthorized = statuses.filter((status) => status === 401).length;
        assert.ok(unauthorized <= LIMIT, `${address}: ${unauthorized} answers of 401`);
        assert.equal(statuses.filter((status) => status === 429).length, 150 - unauthorized);
      }
    });

    if (overrides.redisUrl) {
      it('keeps the counters in Redis under the configured prefix', async () => {
        const redis = new Redis(overrides.redisUrl as string);
        try {
          const stored = await redis.get(`${overrides.redisKeyPrefix}rate-limit:auth-failure:127.0.0.2`);
          assert.ok(Number(stored) >= LIMIT, `counter ${stored}`);
          const keys = await redis.keys(`${overrides.redisKeyPrefix}*`);
          await redis.del(...keys);
        } finally {
          await redis.quit();
        }
      });
    } else if (onEmbeddedDefault(overrides)) {
      it('counts in process memory on the embedded default (one API process per data dir)', async () => {
        const { rows } = await service.services.db.query('SELECT hits FROM rate_limit_counters');
        assert.deepEqual(rows, []);
      });
    } else {
      it('keeps the counters in the rate_limit_counters table, shared by every API process', async () => {
        const { rows } = await service.services.db.query<{ hits: number }>(
          'SELECT hits FROM rate_limit_counters WHERE key = $1',
          ['auth-failure:127.0.0.2'],
        );
        assert.ok((rows[0]?.hits ?? 0) >= LIMIT);
      });
    }
  });
}

/** Without a database URL the service runs as `npm start` does: on the embedded server of its data dir. */
function onEmbeddedDefault(overrides: Pick<Partial<Config>, 'databaseUrl'>): boolean {
  return 'databaseUrl' in overrides && overrides.databaseUrl === undefined;
}

throttleSuite('failed-authentication throttle on the suite store', {});
throttleSuite('failed-authentication throttle on the embedded default', { databaseUrl: undefined });
throttleSuite('failed-authentication throttle on Redis', {
  redisUrl: 'redis://127.0.0.1:6379',
  redisKeyPrefix: `lethe-throttle-${randomBytes(4).toString('hex')}:`,
});

describe('the address a failure is charged to', () => {
  it('is the IPv4 address, the IPv4 of a mapped address, or the /64 of an IPv6 address', () => {
    assert.equal(throttledAddress('203.0.113.9'), '203.0.113.9');
    assert.equal(throttledAddress('::ffff:203.0.113.9'), '203.0.113.9');
    assert.equal(throttledAddress('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64');
    assert.equal(throttledAddress('2001:db8:1:2::7'), '2001:db8:1:2::/64');
    assert.equal(throttledAddress('2001:0db8::1'), '2001:db8:0:0::/64');
    assert.equal(throttledAddress('::1'), '0:0:0:0::/64');
  });
});
