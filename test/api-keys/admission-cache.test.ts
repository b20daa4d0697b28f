// The gate's cache of key verification and its per-process rate counting (src/api-keys/admission-cache.ts,
// src/rate-limits/local-counter.ts) keep what the product promises across API processes: a revoked key
// is refused at once where it was revoked and within a second everywhere else, a key's limit holds across
// processes within the documented bound, and a read is never answered before its audit entry is committed.
// The second API process is a second service on the same database: its own pool, cache, counter and
// listening connection, as a second `lethe serve` has.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { ADMISSION_TTL_MS } from '../../src/api-keys/admission-cache.ts';
import type { Config } from '../../src/config.ts';
import { type RunningService, startService } from '../../src/runtime/start.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { createDatastore, issueKey } from '../helpers/area-b.ts';

const backends: { name: string; overrides: Partial<Config> }[] = [
  { name: 'counters in PostgreSQL', overrides: {} },
  {
    name: 'counters in Redis',
    overrides: {
      redisUrl: 'redis://127.0.0.1:6379',
      redisKeyPrefix: `lethe-admission-${randomBytes(4).toString('hex')}:`,
    },
  },
];

for (const backend of backends)
  describe(`the gate across two API processes, ${backend.name}`, () => {
    let first: TestService;
    let second: RunningService;

    before(async () => {
      first = await startTestService(backend.overrides);
      second = await startService(first.config, {
        api: true,
        worker: false,
        logger: false,
        announce: () => {},
      });
      await createDatastore(first, 'shared');
    });
    after(async () => {
      await second?.stop();
      await first?.stop();
    });

    const getById = (url: string, key: string) =>
      fetch(`${url}/api/entity/get-by-id`, {
        method: 'POST',
        headers: { 'api-key': key, datastore: 'shared', 'content-type': 'application/json' },
        body: JSON.stringify(['x']),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });

    it('refuses a revoked key on its next call where it was revoked and within a second in the other process', async (t) => {
      const { id, key } = await issueKey(first, ['shared']);
      // Both processes have admitted the key, so both hold it in their caches.
      for (const url of [first.url, second.url as string, first.url, second.url as string]) {
        assert.equal(await getById(url, key), 200);
      }
      const revoked = await first.call('DELETE', `/v1/api-key/${id}`, { token: await first.rootToken() });
      assert.equal(revoked.status, 204);
      const revokedAt = Date.now();
      assert.equal(await getById(first.url, key), 401, 'the revoking process refuses the very next call');

      const calls: { startedAfterMs: number; status: number }[] = [];
      while (Date.now() - revokedAt < ADMISSION_TTL_MS + 500) {
        const startedAfterMs = Date.now() - revokedAt;
        calls.push({ startedAfterMs, status: await getById(second.url as string, key) });
      }
      const admittedLate = calls.filter(
        (call) => call.status !== 401 && call.startedAfterMs >= ADMISSION_TTL_MS,
      );
      assert.deepEqual(admittedLate, [], 'no call started a second after the revocation is admitted');
      const firstRefusal = calls.find((call) => call.status === 401);
      assert.ok(firstRefusal, 'the other process refuses the key');
      // The announcement (LISTEN/NOTIFY) usually gets there long before the TTL: reported, not asserted.
      t.diagnostic(
        `first refusal in the other process: a call started ${firstRefusal.startedAfterMs} ms after`,
      );
    });

    it('refuses keys of a deleted datastore in the other process within a second', async () => {
      await createDatastore(first, 'doomed');
      const { key } = await issueKey(first, ['doomed']);
      const call = (url: string) =>
        fetch(`${url}/api/entity/get-by-id`, {
          method: 'POST',
          headers: { 'api-key': key, datastore: 'doomed', 'content-type': 'application/json' },
          body: JSON.stringify(['x']),
        }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        });
      assert.equal(await call(second.url as string), 200);
      assert.equal(await call(second.url as string), 200);
      const deleted = await first.call('DELETE', '/v1/datastore/doomed', { token: await first.rootToken() });
      assert.equal(deleted.status, 204);
      await delay(ADMISSION_TTL_MS);
      assert.notEqual(await call(second.url as string), 200);
    });

    it('holds a key to its limit across both processes, within the documented bound', async () => {
      const limit = 40;
      const { key } = await issueKey(first, ['shared'], { rate_limit_per_minute: limit });
      let admitted = 0;
      let refused = 0;
      for (let round = 0; round < 30; round += 1) {
        const statuses = await Promise.all(
          [first.url, second.url as string, first.url, second.url as string].map((url) => getById(url, key)),
        );
        admitted += statuses.filter((status) => status === 200).length;
        refused += statuses.filter((status) => status === 429).length;
      }
      assert.equal(admitted + refused, 120);
      // local-counter.ts: at most 2 x (processes - 1) x max(1, floor(limit / 20)) past the limit (Redis: exact).
      const bound = 2 * (2 - 1) * Math.max(1, Math.floor(limit / 20));
      assert.ok(admitted >= limit && admitted <= limit + bound, `admitted ${admitted} of limit ${limit}`);
    });
  });

describe('a read is answered only after its audit entry is committed', () => {
  let service: TestService;

  before(async () => {
    // Off the contract on purpose: the test breaks the audit table under a read, whose answer is then an
    // undocumented 500 (an internal failure no client is promised a shape for).
    service = await startTestService({}, { checkAnswers: false });
    await createDatastore(service, 'audited');
  });
  after(async () => {
    await service?.stop();
  });

  it('answers no entity when the audit entry cannot be written, and every answered read has its entry', async () => {
    const { key } = await issueKey(service, ['audited']);
    const headers = { 'api-key': key, datastore: 'audited' };
    const created = await service.call('POST', '/api/entity/create', {
      json: [{ name: 'user', attributes: [{ name: 'email', value: 'ordering@example.com' }] }],
      headers,
    });
    assert.equal(created.status, 203);
    const id = created.body[0].id as string;
    const db = service.services.db;

    // The store refuses the read's audit entry: the read must fail rather than answer without it.
    await db.exec(
      `ALTER TABLE audit_log ADD CONSTRAINT test_no_reads CHECK (action <> 'entity.get-by-id') NOT VALID`,
    );
    try {
      const refused = await service.call('POST', '/api/entity/get-by-id', { json: [id], headers });
      assert.ok(refused.status >= 500, `answered ${refused.status}`);
      assert.doesNotMatch(refused.text, /ordering@example\.com/);
    } finally {
      await db.exec('ALTER TABLE audit_log DROP CONSTRAINT test_no_reads');
    }

    // Concurrent reads (one batch of the group commit): each answer finds its own entry already there.
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const answer = await service.call('POST', '/api/entity/get-by-id', { json: [id], headers });
        const requestId = answer.headers.get('x-request-id');
        const { rows } = await db.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM audit_log WHERE action = 'entity.get-by-id' AND request_id = $1`,
          [requestId],
        );
        return { status: answer.status, requestId, entries: rows[0]?.count };
      }),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.ok(answer.requestId, 'the answer names its request');
      assert.equal(answer.entries, 1, `request ${answer.requestId}`);
    }
  });
});
