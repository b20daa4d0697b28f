// The one list of Lethe's events (docs/events.md): the subscription schema, the checks of a subscription's
// events, the renderers, GET /v1/event-type (and through it the console) and the docs read it. An event's
// name is what a subscription lists; its CloudEvents type is `dev.lethe.<name>` (cloudEventsType). What
// each carries is in src/events/render.ts, never a personal value.

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

/** The CloudEvents `type` attribute of an event: what a CloudEvents receiver routes on. */
export function cloudEventsType(name: EventType): string {
  return `dev.lethe.${name}`;
}

/** The catalogue as GET /v1/event-type answers it: each event in order, its title and CloudEvents type. */
export function describeEventTypes(): { type: EventType; title: string; cloudevents_type: string }[] {
  return EVENT_TYPES.map((type) => ({
    type,
    title: EVENT_TITLES[type],
    cloudevents_type: cloudEventsType(type),
  }));
}

export const EVENT_FORMATS = ['cloudevents', 'slack', 'teams'] as const;
export type EventFormat = (typeof EVENT_FORMATS)[number];
