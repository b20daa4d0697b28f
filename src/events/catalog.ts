// The one list of Lethe's events (docs/events.md): the subscription schema, the checks of a subscription's
// events, the renderers and the docs read it. An event's name is what a subscription lists; its CloudEvents
// type is `dev.lethe.<name>`. What each carries is in src/events/render.ts, never a personal value.

export const EVENT_TYPES = [
  'privacy_request.received',
  'privacy_request.verified',
  'privacy_request.approved',
  'privacy_request.denied',
  'privacy_request.canceled',
  'privacy_request.completed',
  'privacy_request.errored',
  'privacy_request.stuck',
  'privacy_request.due_soon',
  'privacy_request.extended',
  'appeal.submitted',
  'appeal.decided',
  'task.created',
  'task.assigned',
  'task.overdue',
  'task.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(EVENT_TYPES);

export function isEventType(name: string): name is EventType {
  return KNOWN.has(name);
}

/** The headline of each event, as a chat message and the digest say it. */
export const EVENT_TITLES: Record<EventType, string> = {
  'privacy_request.received': 'Privacy request received',
  'privacy_request.verified': 'Privacy request verified',
  'privacy_request.approved': 'Privacy request approved',
  'privacy_request.denied': 'Privacy request denied',
  'privacy_request.canceled': 'Privacy request canceled',
  'privacy_request.completed': 'Privacy request completed',
  'privacy_request.errored': 'Privacy request failed',
  'privacy_request.stuck': 'Privacy request stuck',
  'privacy_request.due_soon': 'Privacy request due soon',
  'privacy_request.extended': 'Privacy request extended',
  'appeal.submitted': 'Appeal submitted',
  'appeal.decided': 'Appeal decided',
  'task.created': 'Task created',
  'task.assigned': 'Task assigned',
  'task.overdue': 'Task overdue',
  'task.completed': 'Task completed',
};

export const EVENT_FORMATS = ['cloudevents', 'slack', 'teams'] as const;
export type EventFormat = (typeof EVENT_FORMATS)[number];
