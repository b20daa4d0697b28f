// How an event comes to be: rows of event_deliveries, one per event and enabled subscription that lists
// it, written by the statement or in the transaction of the change the event reports, so that an event
// exists if and only if its change committed (nothing lost, nothing for a change rolled back). With no
// subscription listening the statement writes nothing (an InitPlan checks once per statement).
// What an event carries is decided here and only here: ids, statuses, the policy key, the jurisdiction
// and dates, never an identity value or subject data (the renderer adds a console link).
import type { Queryable } from '../db/database.ts';
import type { EventType } from './catalog.ts';

/** A timestamptz as ISO 8601 in UTC (jsonb's own rendering follows the session's time zone). */
const iso = (expression: string) =>
  `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Where the events of one statement come from: a FROM item aliased `r`, and what each row makes. */
interface EventSource {
  from: string;
  subject: string;
  privacyRequestId: string;
  data: string;
  /** The order of the rows' events (then the order of `types`). */
  order: string;
}

/**
 * The INSERT of the deliveries of the events `types` (an SQL text[] expression) for each row of `source`,
 * to every enabled subscription listing them, in row order then type order.
 */
function insertDeliveriesSql(types: string, source: EventSource): string {
  return `INSERT INTO event_deliveries
            (id, subscription_key, event_id, event_type, subject, privacy_request_id, occurred_at, data)
          WITH e AS MATERIALIZED (
            SELECT ${source.subject} AS subject, ${source.privacyRequestId} AS privacy_request_id, t.type,
                   'evt_' || gen_random_uuid() AS event_id, ${source.data} AS data,
                   row_number() OVER (ORDER BY ${source.order}, t.k) AS n
              FROM ${source.from} CROSS JOIN unnest(${types}::text[]) WITH ORDINALITY AS t(type, k)
             WHERE EXISTS (SELECT FROM event_subscriptions WHERE enabled))
          SELECT 'msg_' || gen_random_uuid(), s.key, e.event_id, e.type, e.subject, e.privacy_request_id, now(), e.data
            FROM e JOIN event_subscriptions s ON s.enabled AND e.type = ANY (s.events)
           ORDER BY e.n, s.key`;
}

/** What a request's event carries, from `r` shaped like privacy_requests, merged with `extra` (jsonb). */
function requestData(extra: string): string {
  return `jsonb_build_object(
            'privacy_request_id', r.id, 'status', r.status,
            'policy_key', (SELECT p.key FROM policies p WHERE p.id = r.policy_id),
            'jurisdiction', r.jurisdiction, 'requested_at', ${iso('r.requested_at')},
            'due_at', ${iso('r.due_at')}) || ${extra}`;
}

/**
 * The events of requests in `relation` (rows of privacy_requests, such as the RETURNING of the statement
 * that changes them), for a statement to run as one of its CTEs; `param` adds a parameter.
 */
export function requestEventsSql(
  relation: string,
  types: readonly EventType[],
  extra: Record<string, unknown>,
  param: (value: unknown) => string,
): string {
  return insertDeliveriesSql(param(types), {
    from: `${relation} r`,
    subject: 'r.id',
    privacyRequestId: 'r.id',
    data: requestData(`${param(JSON.stringify(extra))}::jsonb`),
    order: 'r.requested_at, r.id',
  });
}

/** Emits `type` for each request of `ids` as it is now in `tx`, with `extra` facts in its data. */
export async function emitRequestEvent(
  tx: Queryable,
  type: EventType,
  ids: readonly string[],
  extra: Record<string, unknown> = {},
): Promise<void> {
  if (ids.length === 0) return;
  const params: unknown[] = [ids];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  await tx.query(
    requestEventsSql('(SELECT * FROM privacy_requests WHERE id = ANY ($1))', [type], extra, param),
    params,
  );
}

/** Emits `type` for each task of `ids` as it is now in `tx`. */
export async function emitTaskEvent(tx: Queryable, type: EventType, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(
    insertDeliveriesSql('$2', {
      from: '(SELECT * FROM tasks WHERE id = ANY ($1)) r',
      subject: 'r.id',
      privacyRequestId: 'r.privacy_request_id',
      data: `jsonb_build_object(
               'task_id', r.id, 'privacy_request_id', r.privacy_request_id, 'system_key', r.system_key,
               'action', r.action, 'status', r.status, 'assignee', r.assignee, 'due_at', ${iso('r.due_at')})`,
      order: 'r.created_at, r.id',
    }),
    [ids, [type]],
  );
}
