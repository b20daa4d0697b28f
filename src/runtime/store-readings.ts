// What /metrics reads from the store at each scrape, asked of the owners of those tables (the
// privacy-request repository, the queue, the outbox). Every status, deadline bucket and outbox state is
// answered, with 0 when nothing is in it, so that dashboards and alert rules see a series, not nothing.
// Wiring, so it lives in runtime/: the metrics module below knows Prometheus, not the domains it reads.
import type { Database } from '../db/database.ts';
import { eventReadings } from '../events/readings.ts';
import type { Queue } from '../jobs/queue.ts';
import { OUTBOX_DELIVERY_STATES, outboxRepository } from '../outbox/repository.ts';
import { privacyRequestRepository as requests } from '../privacy-requests/repository.ts';
import { STATUSES } from '../privacy-requests/statuses.ts';
import { stuckRepository } from '../privacy-requests/stuck-repository.ts';
import { DEADLINE_BUCKETS, type DeadlineBucket, type StoreReadings } from '../metrics/metrics.ts';

export function deadlineBucketOf(daysLeft: number): DeadlineBucket {
  if (daysLeft < 0) return 'overdue';
  if (daysLeft < 7) return '0-6';
  if (daysLeft < 30) return '7-29';
  return '30+';
}

export function storeReadings(db: Database, queue: Queue, stuckAfterSeconds: number): StoreReadings {
  return {
    ...eventReadings(db),
    async stuckPrivacyRequests() {
      return stuckRepository.countStuck(db, stuckAfterSeconds);
    },
    async privacyRequestsByStatus() {
      const counts = new Map((await requests.countByStatus(db)).map((row) => [row.status, row.count]));
      return STATUSES.map((status) => ({ labels: { status }, count: counts.get(status) ?? 0 }));
    },
    async openPrivacyRequestsByDeadline() {
      const counts = new Map<DeadlineBucket, number>(DEADLINE_BUCKETS.map((bucket) => [bucket, 0]));
      for (const row of await requests.countOpenByDaysLeft(db)) {
        const bucket = deadlineBucketOf(row.days_left);
        counts.set(bucket, (counts.get(bucket) ?? 0) + row.count);
      }
      return [...counts].map(([bucket, count]) => ({ labels: { days_left: bucket }, count }));
    },
    async outboxMessagesByState() {
      const counts = new Map(
        (await outboxRepository.countByDeliveryState(db)).map((row) => [row.state, row.count]),
      );
      return OUTBOX_DELIVERY_STATES.map((state) => ({ labels: { state }, count: counts.get(state) ?? 0 }));
    },
    async queuedJobs() {
      return (await queue.jobCounts()).map(({ queue: name, state, count }) => ({
        labels: { queue: name, state },
        count,
      }));
    },
  };
}
