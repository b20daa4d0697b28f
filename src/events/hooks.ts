// The events' part in a request's life (src/privacy-requests/lifecycle.ts): a status change joins the
// statement that makes it with the deliveries of its events; an extension or an appeal emits in its
// transaction; the sweep finds what no statement reports (due soon, stuck, an overdue task), each once,
// and sends the daily digests that are due.
import type { LifecycleHooks, RequestNotice } from '../privacy-requests/lifecycle.ts';
import type { Status } from '../privacy-requests/statuses.ts';
import type { EventType } from './catalog.ts';
import { sendDigests } from './digest.ts';
import { emitRequestEvent, requestEventsSql } from './emit.ts';
import { sweepEvents } from './sweep.ts';

/** The events a move from `from` (null: the request was received) to `to` reports, in their order. */
export function eventsOfMove(from: Status | null, to: Status): EventType[] {
  const events: EventType[] = [];
  if (from === null) events.push('privacy_request.received');
  if (from === 'identity_unverified' && to !== 'canceled') events.push('privacy_request.verified');
  if (to === 'approved' && from !== 'approved') events.push('privacy_request.approved');
  if (to === 'denied') events.push('privacy_request.denied');
  if (to === 'canceled') events.push('privacy_request.canceled');
  if (to === 'complete') events.push('privacy_request.completed');
  if (to === 'error') events.push('privacy_request.errored');
  return events;
}

function eventOfNotice(notice: RequestNotice): { type: EventType; extra: Record<string, unknown> } {
  switch (notice.kind) {
    case 'extended':
      return { type: 'privacy_request.extended', extra: {} };
    case 'appeal_submitted':
      return { type: 'appeal.submitted', extra: { appeal_due_at: notice.dueAt.toISOString() } };
    case 'appeal_decided':
      return { type: 'appeal.decided', extra: { outcome: notice.outcome } };
  }
}

export const eventHooks: LifecycleHooks = {
  onStatusChange({ from, to }) {
    const events = eventsOfMove(from, to);
    if (events.length === 0) return undefined;
    return (changed, param) => [requestEventsSql(changed, events, { previous_status: from }, param)];
  },
  async onNotice(tx, _services, { row, notice }) {
    const { type, extra } = eventOfNotice(notice);
    await emitRequestEvent(tx, type, [row.id], extra);
  },
  async sweep(services) {
    await sweepEvents(services);
    await sendDigests(services, new Date());
  },
};
