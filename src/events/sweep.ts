// The events no statement reports, found by the periodic sweep: a request due within LETHE_DUE_SOON_DAYS
// (once per request), a request that became stuck (once per stall: its mark goes when it is no longer
// stuck), an open task past its due time (once per task). Each is marked and emitted in one statement, so
// two workers sweeping at once emit it once. Nothing is read when no subscription lists the event.
import type { Queryable } from '../db/database.ts';
import { stuckCondition } from '../privacy-requests/stuck-repository.ts';
import { CLOSED_STATUSES } from '../privacy-requests/statuses.ts';
import type { Services } from '../services.ts';
import type { EventType } from './catalog.ts';
import { emitTaskEvent, requestEventsSql } from './emit.ts';

/** The event types some enabled subscription lists. */
async function listenedTypes(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query<{ type: string }>(
    'SELECT DISTINCT unnest(events) AS type FROM event_subscriptions WHERE enabled',
  );
  return new Set(rows.map((row) => row.type));
}

/** Marks the requests `candidates` (SQL selecting ids) with `type` and emits it for those newly marked. */
async function markAndEmitRequests(
  db: Queryable,
  type: EventType,
  candidates: string,
  params: unknown[],
): Promise<void> {
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const typeParam = param(type);
  const events = requestEventsSql(
    '(SELECT p.* FROM privacy_requests p JOIN marked m ON m.subject = p.id)',
    [type],
    {},
    param,
  );
  await db.query(
    `WITH marked AS (
       INSERT INTO event_marks (subject, event_type)
       SELECT id, ${typeParam} FROM (${candidates}) c
        WHERE NOT EXISTS (SELECT FROM event_marks m WHERE m.subject = c.id AND m.event_type = ${typeParam})
       ON CONFLICT DO NOTHING RETURNING subject),
     emitted AS (${events})
     SELECT count(*) FROM marked`,
    params,
  );
}

export async function sweepEvents(services: Pick<Services, 'db' | 'config'>, at = new Date()): Promise<void> {
  const { db, config } = services;
  const listened = await listenedTypes(db);
  if (listened.has('privacy_request.due_soon')) {
    await markAndEmitRequests(
      db,
      'privacy_request.due_soon',
      `SELECT id FROM privacy_requests
        WHERE status <> ALL ($1) AND due_at IS NOT NULL
          AND due_at <= $2::timestamptz + make_interval(days => $3::int)`,
      [CLOSED_STATUSES, at, config.dueSoonDays],
    );
  }
  // A stuck request that moved on loses its mark, so that its next stall is told again.
  await db.query(
    `DELETE FROM event_marks WHERE event_type = 'privacy_request.stuck'
        AND NOT EXISTS (SELECT FROM privacy_requests WHERE id = event_marks.subject AND ${stuckCondition('$1')})`,
    [config.stuckAfterSeconds],
  );
  if (listened.has('privacy_request.stuck')) {
    await markAndEmitRequests(
      db,
      'privacy_request.stuck',
      `SELECT id FROM privacy_requests WHERE ${stuckCondition('$1')}`,
      [config.stuckAfterSeconds],
    );
  }
  if (listened.has('task.overdue')) {
    await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ subject: string }>(
        `INSERT INTO event_marks (subject, event_type)
         SELECT id, 'task.overdue' FROM tasks t
          WHERE status = 'open' AND due_at < $1
            AND NOT EXISTS (SELECT FROM event_marks m WHERE m.subject = t.id AND m.event_type = 'task.overdue')
         ORDER BY due_at
         ON CONFLICT DO NOTHING RETURNING subject`,
        [at],
      );
      await emitTaskEvent(
        tx,
        'task.overdue',
        rows.map((row) => row.subject),
      );
    });
  }
}
