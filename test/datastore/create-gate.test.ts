import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { CONCURRENT_CREATES } from '../../src/datastore/subject-service.ts';
import { apiClient, type ApiClient } from '../helpers/area-b.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// entity/create seals and indexes every value on the API's event loop; the service lets CONCURRENT_CREATES
// of them run at once and queues the rest, so that a burst of creates cannot hold every other request of
// the process (src/datastore/subject-service.ts). Seen from PostgreSQL: creates whose children reference a
// parent row another transaction holds FOR UPDATE wait on its lock, and no more of them wait than the
// limit; the queued ones start when the lock goes, and every create lands.
describe('entity/create runs a bounded number at once', () => {
  let service: TestService;
  let api: ApiClient;
  const CREATES = CONCURRENT_CREATES + 3;

  before(async () => {
    service = await startTestService();
    api = await apiClient(service, 'gated');
  });
  after(() => service.stop());

  async function waitingOnTheParent(): Promise<number> {
    const { rows } = await service.services.db.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'
          AND query LIKE 'INSERT INTO entity_references%'`,
    );
    return rows[0]?.waiting ?? 0;
  }

  it(`holds all but ${CONCURRENT_CREATES} creates of a burst, then lands every one`, async () => {
    const parent = await api.call('/api/entity/create', { json: [{ name: 'users', attributes: [] }] });
    assert.equal(parent.status, 203, parent.text);
    const parentId: string = parent.body[0].id;

    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    const holder = service.services.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM entities WHERE id = $1 FOR UPDATE', [parentId]);
      locked();
      await released;
    });
    await lockHeld;

    const creates = Array.from({ length: CREATES }, (_, index) =>
      api.call('/api/entity/create', {
        json: [
          {
            name: 'orders',
            attributes: [{ name: 'number', value: `order-${index}` }],
            references: [{ parentId, parentName: 'users' }],
          },
        ],
      }),
    );
    try {
      const deadline = Date.now() + 20_000;
      while ((await waitingOnTheParent()) < CONCURRENT_CREATES && Date.now() < deadline) await sleep(50);
      assert.equal(await waitingOnTheParent(), CONCURRENT_CREATES, 'the first creates reach the lock');
      // The other creates have long reached the service; none of them is let through to the lock.
      await sleep(1000);
      assert.equal(await waitingOnTheParent(), CONCURRENT_CREATES, 'no more creates than the limit run');
    } finally {
      release();
      await holder;
    }

    const answers = await Promise.all(creates);
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.body[0]?.error ?? null]),
      answers.map(() => [203, null]),
    );
    const children = await api.call('/api/entity/get-by-id', {
      json: answers.map((answer) => answer.body[0].id),
    });
    assert.deepEqual(
      children.body.map((child: { attributes: { value: string }[] }) => child.attributes[0]?.value).sort(),
      Array.from({ length: CREATES }, (_, index) => `order-${index}`).sort(),
    );
  });
});
