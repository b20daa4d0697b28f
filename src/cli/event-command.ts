// `lethe event-subscription list|put|delete|rotate-secret|deliveries|redeliver` and `lethe digest send`:
// the events (docs/events.md) for an operator on the host, through the same service as
// /v1/event-subscription (changes are audited with the actor `client:cli`). A secret is printed once,
// when a subscription is created or its secret rotated.
import { sendDigests } from '../events/digest.ts';
import { EventSubscriptionService } from '../events/service.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';
import { cliActor, formatJson, formatTable } from './output.ts';

export const EVENT_SUBSCRIPTION_USAGE = `Usage:
  lethe event-subscription list [--json]
      list event subscriptions (URLs masked)
  lethe event-subscription put KEY --url URL --event E [--event E ...] --format cloudevents|slack|teams [--disabled]
      create (its signing secret is printed once) or replace an event subscription
  lethe event-subscription delete KEY
  lethe event-subscription rotate-secret KEY
      make a new signing secret, printed once
  lethe event-subscription deliveries KEY [--json]
      the subscription's deliveries, newest first, with their attempts
  lethe event-subscription redeliver KEY DELIVERY_ID
      send a delivery again under its webhook-id
`;

export const DIGEST_USAGE = `Usage:
  lethe digest send [--user USERNAME]
      send the daily digest now to each operator who asked for it (or only USERNAME), whatever the hour
`;

export type EventSubscriptionCommand =
  | { action: 'list' | 'deliveries'; key?: string; json: boolean }
  | { action: 'put'; key: string; url: string; events: string[]; format: string; enabled: boolean }
  | { action: 'delete' | 'rotate-secret'; key: string }
  | { action: 'redeliver'; key: string; deliveryId: string };

export function parseEventSubscriptionCommand(argv: string[]): EventSubscriptionCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    {
      url: { type: 'string' },
      event: { type: 'string', multiple: true },
      format: { type: 'string' },
      disabled: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    EVENT_SUBSCRIPTION_USAGE,
  );
  const [action, key, deliveryId, ...rest] = positionals;
  const fail = (problem: string) => usageError(EVENT_SUBSCRIPTION_USAGE, problem);
  if (rest.length > 0) throw fail(`unexpected argument ${JSON.stringify(rest[0])}.`);
  const needKey = () => {
    if (key === undefined) throw fail(`${action} needs the subscription's KEY.`);
    return key;
  };
  switch (action) {
    case 'list':
      return { action, json: values.json ?? false };
    case 'deliveries':
      return { action, key: needKey(), json: values.json ?? false };
    case 'put': {
      if (!values.url || !values.event?.length || !values.format)
        throw fail('put needs --url, at least one --event and --format.');
      return {
        action,
        key: needKey(),
        url: values.url,
        events: values.event,
        format: values.format,
        enabled: !values.disabled,
      };
    }
    case 'delete':
    case 'rotate-secret':
      return { action, key: needKey() };
    case 'redeliver':
      if (deliveryId === undefined) throw fail('redeliver needs KEY and DELIVERY_ID.');
      return { action, key: needKey(), deliveryId };
    default:
      throw fail(action === undefined ? 'give an action.' : `unknown action ${JSON.stringify(action)}.`);
  }
}

export async function runEventSubscriptionCommand(
  services: Services,
  command: EventSubscriptionCommand,
): Promise<string> {
  const subscriptions = new EventSubscriptionService(services);
  switch (command.action) {
    case 'list': {
      const page = await subscriptions.list(1, 1000);
      if (command.json) return formatJson(page);
      return formatTable(
        ['key', 'format', 'enabled', 'url', 'events', 'failures_in_a_row'],
        page.items.map((item) => [
          item.key,
          item.format,
          item.enabled,
          item.url,
          item.events.join(','),
          item.consecutive_failures,
        ]),
      );
    }
    case 'deliveries': {
      const page = await subscriptions.deliveries(command.key as string, 1, 200);
      if (command.json) return formatJson(page);
      return formatTable(
        ['id', 'event', 'subject', 'state', 'attempts', 'last_status', 'last_error'],
        page.items.map((item) => [
          item.id,
          item.event_type,
          item.subject,
          item.state,
          item.attempts.length,
          item.last_status_code,
          item.last_error,
        ]),
      );
    }
    case 'put': {
      const { key, url, events, format, enabled } = command;
      const answer = await subscriptions.put(cliActor(), key, { url, events, format, enabled });
      return answer.created
        ? `created ${key}; its signing secret (shown this once): ${answer.view.secret}\n`
        : `updated ${key}\n`;
    }
    case 'delete':
      await subscriptions.remove(cliActor(), command.key);
      return `deleted ${command.key}\n`;
    case 'rotate-secret': {
      const { secret } = await subscriptions.rotateSecret(cliActor(), command.key);
      return `new signing secret of ${command.key} (shown this once): ${secret}\n`;
    }
    case 'redeliver':
      await subscriptions.redeliver(cliActor(), command.key, command.deliveryId);
      return `delivery ${command.deliveryId} queued again\n`;
  }
}

export function parseDigestCommand(argv: string[]): { username?: string } {
  const { values, positionals } = parseCommandArguments(argv, { user: { type: 'string' } }, DIGEST_USAGE);
  const [action, ...rest] = positionals;
  if (action !== 'send' || rest.length > 0)
    throw usageError(
      DIGEST_USAGE,
      action === 'send' ? `unexpected argument ${JSON.stringify(rest[0])}.` : 'give the action send.',
    );
  return values.user === undefined ? {} : { username: values.user };
}

export async function runDigestCommand(services: Services, options: { username?: string }): Promise<string> {
  const sent = await sendDigests(services, new Date(), { now: true, ...options });
  return sent.length === 0
    ? 'no digest sent: nobody who asked for one has anything waiting\n'
    : `digest queued in the outbox for ${sent.join(', ')}\n`;
}
