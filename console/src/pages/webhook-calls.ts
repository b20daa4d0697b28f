// The calls behind a webhook list, one typed path per list: a policy's pre- or post-execution webhooks
// (ordered, with a direction, each with its own PATCH and DELETE) or the service's pre-approval webhooks
// (replaced as a whole). WebhookList speaks to whichever it is given through this one shape.
import { answer, type Api } from '../api.ts';
import type { Direction, Webhook } from '../schema.ts';

/** Which list: a policy's webhooks of one timing, or the pre-approval webhooks. */
export type WebhookListSource =
  | { policyKey: string; timing: 'pre_execution' | 'post_execution' }
  | { policyKey?: undefined; timing: 'pre_approval' };

/** A webhook as a list replacement sends it; `direction` only for a policy's webhooks. */
export interface WebhookListItem {
  connection_config_key: string;
  key: string;
  name: string;
  direction?: Direction;
}

export interface WebhookCalls {
  list(): Promise<Webhook[]>;
  replace(items: WebhookListItem[]): Promise<unknown>;
  /** Only a policy's webhooks change one at a time. */
  update?(key: string, change: { order?: number; direction?: Direction }): Promise<unknown>;
  remove?(key: string): Promise<unknown>;
}

const withDirection = (items: WebhookListItem[]) =>
  items.map((item) => ({ ...item, direction: item.direction ?? 'one_way' }));

export function webhookCalls(api: Api, source: WebhookListSource): WebhookCalls {
  if (source.timing === 'pre_approval') {
    return {
      list: () => answer(api.GET('/v1/pre_approval_webhook')),
      replace: (items) =>
        answer(
          api.PUT('/v1/pre_approval_webhook', {
            body: items.map(({ connection_config_key, key, name }) => ({ connection_config_key, key, name })),
          }),
        ),
    };
  }
  const policy_key = source.policyKey;
  const one = (webhook_key: string) => ({ params: { path: { policy_key, webhook_key } } });
  if (source.timing === 'pre_execution') {
    return {
      list: () =>
        answer(
          api.GET('/v1/policy/{policy_key}/webhook/pre_execution', { params: { path: { policy_key } } }),
        ),
      replace: (items) =>
        answer(
          api.PUT('/v1/policy/{policy_key}/webhook/pre_execution', {
            params: { path: { policy_key } },
            body: withDirection(items),
          }),
        ),
      update: (key, change) =>
        answer(
          api.PATCH('/v1/policy/{policy_key}/webhook/pre_execution/{webhook_key}', {
            ...one(key),
            body: change,
          }),
        ),
      remove: (key) =>
        answer(api.DELETE('/v1/policy/{policy_key}/webhook/pre_execution/{webhook_key}', one(key))),
    };
  }
  return {
    list: () =>
      answer(api.GET('/v1/policy/{policy_key}/webhook/post_execution', { params: { path: { policy_key } } })),
    replace: (items) =>
      answer(
        api.PUT('/v1/policy/{policy_key}/webhook/post_execution', {
          params: { path: { policy_key } },
          body: withDirection(items),
        }),
      ),
    update: (key, change) =>
      answer(
        api.PATCH('/v1/policy/{policy_key}/webhook/post_execution/{webhook_key}', {
          ...one(key),
          body: change,
        }),
      ),
    remove: (key) =>
      answer(api.DELETE('/v1/policy/{policy_key}/webhook/post_execution/{webhook_key}', one(key))),
  };
}
