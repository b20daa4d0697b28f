// What a receiver gets for one delivery: the body in the subscription's format and the Standard Webhooks
// headers (webhook-id, webhook-timestamp, webhook-signature) made by the `standardwebhooks` library. The
// body is rendered from the stored delivery alone, so every attempt and redelivery of it sends the same
// event under the same webhook-id. `cloudevents`: CloudEvents 1.0 structured JSON; `slack`: an incoming
// webhook's blocks; `teams`: an incoming webhook's Adaptive Card. Each carries what the event's data holds
// (ids, statuses, policy key, jurisdiction, dates) and a link to the console, never subject data.
import type { Webhook } from 'standardwebhooks';
import type { Config } from '../config.ts';
import { publicBaseUrl } from '../privacy-center-settings/public-url.ts';
import { cloudEventsType, EVENT_TITLES, type EventFormat, type EventType } from './catalog.ts';

export interface StoredEvent {
  /** The delivery's id: the webhook-id. */
  id: string;
  event_id: string;
  event_type: EventType;
  subject: string;
  privacy_request_id: string;
  occurred_at: Date;
  data: Record<string, unknown>;
}

export interface RenderedDelivery {
  headers: Record<string, string>;
  body: string;
}

type LinkConfig = Pick<Config, 'publicUrl' | 'host' | 'port'>;

/** Where an operator sees the event's request in the console. */
export function consoleLink(config: LinkConfig, privacyRequestId: string): string {
  return `${publicBaseUrl(config)}/console/requests/${encodeURIComponent(privacyRequestId)}`;
}

export function cloudEvent(config: LinkConfig, event: StoredEvent): Record<string, unknown> {
  return {
    specversion: '1.0',
    id: event.event_id,
    source: `${publicBaseUrl(config)}/`,
    type: cloudEventsType(event.event_type),
    time: event.occurred_at.toISOString(),
    subject: event.subject,
    datacontenttype: 'application/json',
    data: { ...event.data, console_url: consoleLink(config, event.privacy_request_id) },
  };
}

/** The facts a chat message lists: each set field of the data, in its order, by a readable name. */
function facts(event: StoredEvent): [string, string][] {
  return Object.entries(event.data)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([name, value]) => [name.replaceAll('_', ' '), String(value)]);
}

function slackMessage(config: LinkConfig, event: StoredEvent): Record<string, unknown> {
  const title = EVENT_TITLES[event.event_type];
  const link = consoleLink(config, event.privacy_request_id);
  return {
    text: `${title}: ${event.subject}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title } },
      {
        type: 'section',
        fields: facts(event).map(([name, value]) => ({ type: 'mrkdwn', text: `*${name}*\n${value}` })),
      },
      {
        type: 'actions',
        elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open in Lethe' }, url: link }],
      },
    ],
  };
}

function teamsMessage(config: LinkConfig, event: StoredEvent): Record<string, unknown> {
  const title = EVENT_TITLES[event.event_type];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', size: 'Medium', weight: 'Bolder', text: title, wrap: true },
            { type: 'FactSet', facts: facts(event).map(([name, value]) => ({ title: name, value })) },
          ],
          actions: [
            {
              type: 'Action.OpenUrl',
              title: 'Open in Lethe',
              url: consoleLink(config, event.privacy_request_id),
            },
          ],
        },
      },
    ],
  };
}

const CONTENT_TYPES: Record<EventFormat, string> = {
  cloudevents: 'application/cloudevents+json',
  slack: 'application/json',
  teams: 'application/json',
};

export function renderBody(config: LinkConfig, format: EventFormat, event: StoredEvent): string {
  switch (format) {
    case 'cloudevents':
      return JSON.stringify(cloudEvent(config, event));
    case 'slack':
      return JSON.stringify(slackMessage(config, event));
    case 'teams':
      return JSON.stringify(teamsMessage(config, event));
  }
}

/** The body and headers of one attempt, signed by `signer` (the subscription's secret) at `at` (the webhook-timestamp). */
export function renderDelivery(
  config: LinkConfig,
  format: EventFormat,
  signer: Webhook,
  event: StoredEvent,
  at: Date,
): RenderedDelivery {
  const body = renderBody(config, format, event);
  return {
    body,
    headers: {
      'content-type': CONTENT_TYPES[format],
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signer.sign(event.id, at, body),
    },
  };
}
