// Event subscriptions (docs/events.md): where Lethe posts its events (signed CloudEvents, Slack or Teams),
// created with their event types and format, the signing secret shown once (at creation and after a
// rotation), disabled and enabled, deleted; each one's delivery log with a redelivery per delivery. And the
// daily digest, turned on or off per operator. Everything through the API's routes (src/events/routes.ts,
// PATCH /v1/user/{username}); reading needs event-subscription:read, changing event-subscription:update.
// The events a subscription may name are the service's catalogue (GET /v1/event-type), never a copy.
import { type FormEvent, useState } from 'react';
import {
  ConfirmButton,
  Empty,
  ErrorNotice,
  Field,
  Loading,
  PageHeader,
  SecretOnce,
  StatusBadge,
  SuccessNotice,
} from '../components.tsx';
import { formatDateTime } from '../format.ts';
import { useAction, useResource } from '../hooks.ts';
import { holds, useSession } from '../session.tsx';
import { answer } from '../api.ts';
import type { Ok } from '../schema.ts';

type Subscription = Ok<'/v1/event-subscription', 'get'>['items'][number];

const FORMATS = [
  { value: 'cloudevents', label: 'CloudEvents (signed JSON, Standard Webhooks)' },
  { value: 'slack', label: 'Slack incoming webhook' },
  { value: 'teams', label: 'Teams incoming webhook' },
];

export function EventsPage() {
  const { api, info } = useSession();
  const canChange = holds(info.scopes, 'event-subscription:update');
  const subscriptions = useResource(
    () => answer(api.GET('/v1/event-subscription', { params: { query: { size: 1000 } } })),
    'event subscriptions',
  );
  const [secret, setSecret] = useState<{ key: string; value: string } | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const change = useAction();
  const [done, setDone] = useState('');

  async function toggle(subscription: Subscription) {
    setDone('');
    const enabled = !subscription.enabled;
    if (
      await change.run(() =>
        answer(
          api.PUT('/v1/event-subscription/{key}', {
            params: { path: { key: subscription.key } },
            // The masked URL the list shows keeps the stored one (the PUT's contract).
            body: {
              url: subscription.url,
              events: subscription.events,
              format: subscription.format,
              enabled,
            },
          }),
        ),
      )
    ) {
      setDone(`${subscription.key} ${enabled ? 'enabled' : 'disabled'}.`);
      await subscriptions.reload();
    }
  }

  async function rotate(key: string) {
    setDone('');
    await change.run(async () => {
      const rotated = await answer(
        api.POST('/v1/event-subscription/{key}/rotate-secret', { params: { path: { key } } }),
      );
      setSecret({ key, value: rotated.secret });
    });
  }

  async function remove(key: string) {
    setDone('');
    if (
      await change.run(() =>
        answer(api.DELETE('/v1/event-subscription/{key}', { params: { path: { key } } })),
      )
    ) {
      setDone(`${key} deleted.`);
      if (open === key) setOpen(null);
      await subscriptions.reload();
    }
  }

  return (
    <>
      <PageHeader title="Events" />
      <p className="hint">
        Lethe posts what happens to requests and tasks to these addresses: ids, statuses and dates with a
        console link, never an identity or the subject’s data (docs/events.md).
      </p>
      <ErrorNotice message={subscriptions.error || change.error} />
      {done ? <SuccessNotice message={done} /> : null}
      {secret ? (
        <SecretOnce
          label={`Signing secret of ${secret.key}`}
          value={secret.value}
          note="Shown this once: give it to the receiver now to verify the webhook-signature header. Rotate to make a new one."
          onDismiss={() => setSecret(null)}
        />
      ) : null}
      {subscriptions.loading && !subscriptions.data ? (
        <Loading what="event subscriptions" />
      ) : subscriptions.data && subscriptions.data.items.length === 0 ? (
        <Empty>No event subscription yet. Add one below.</Empty>
      ) : subscriptions.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">URL</th>
              <th scope="col">Format</th>
              <th scope="col">Events</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {subscriptions.data.items.map((subscription) => (
              <tr key={subscription.key}>
                <td data-label="Key">
                  <code>{subscription.key}</code>
                </td>
                <td data-label="URL">
                  <code>{subscription.url}</code>
                </td>
                <td data-label="Format">{subscription.format}</td>
                <td data-label="Events">{subscription.events.join(', ')}</td>
                <td data-label="State">
                  {subscription.enabled ? 'enabled' : 'disabled'}
                  {subscription.consecutive_failures > 0
                    ? ` (${subscription.consecutive_failures} failures in a row)`
                    : ''}
                </td>
                <td data-label="Actions" className="buttons">
                  <button
                    type="button"
                    aria-pressed={open === subscription.key}
                    onClick={() => setOpen(open === subscription.key ? null : subscription.key)}
                  >
                    Deliveries of {subscription.key}
                  </button>
                  <button
                    type="button"
                    disabled={!canChange || change.pending}
                    onClick={() => toggle(subscription)}
                  >
                    {subscription.enabled ? 'Disable' : 'Enable'} {subscription.key}
                  </button>
                  <ConfirmButton
                    label={`Rotate the secret of ${subscription.key}`}
                    confirmLabel="Yes, rotate: the old secret stops working"
                    disabled={!canChange || change.pending}
                    onConfirm={() => rotate(subscription.key)}
                  />
                  <ConfirmButton
                    label={`Delete ${subscription.key}`}
                    confirmLabel="Yes, delete"
                    disabled={!canChange || change.pending}
                    onConfirm={() => remove(subscription.key)}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {open ? <DeliveryLog subscriptionKey={open} canChange={canChange} /> : null}
      <SubscriptionForm
        disabled={!canChange}
        onCreated={async (key, value) => {
          setDone('');
          setSecret({ key, value });
          await subscriptions.reload();
        }}
      />
      <DigestSettings />
    </>
  );
}

function SubscriptionForm(props: {
  disabled: boolean;
  onCreated: (key: string, secret: string) => Promise<void>;
}) {
  const { api } = useSession();
  const [key, setKey] = useState('');
  const [url, setUrl] = useState('');
  const [format, setFormat] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const create = useAction();
  const catalogue = useResource(() => answer(api.GET('/v1/event-type')), 'event types');
  const eventTypes = catalogue.data?.items ?? [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (events.length === 0) {
      create.setError('Choose at least one event to send.');
      return;
    }
    if (!format) {
      create.setError('Choose the format of the messages.');
      return;
    }
    let made: { key: string; secret: string } | undefined;
    await create.run(async () => {
      // 201 carries the secret (shown once); 200 replaced an existing key and carries none.
      const answered = await answer(
        api.PUT('/v1/event-subscription/{key}', {
          params: { path: { key: key.trim() } },
          body: { url: url.trim(), events, format, enabled: true },
        }),
      );
      if ('secret' in answered && typeof answered.secret === 'string')
        made = { key: answered.key, secret: answered.secret };
    });
    if (made) {
      await props.onCreated(made.key, made.secret);
      setKey('');
      setUrl('');
      setEvents([]);
      setFormat('');
    }
  }

  return (
    <form onSubmit={submit} className="card" aria-label="Add an event subscription">
      <h2>Add an event subscription</h2>
      <fieldset className="inline-form" disabled={props.disabled}>
        {props.disabled ? (
          <p className="hint">Adding a subscription needs the event-subscription:update scope.</p>
        ) : null}
        <Field label="Key">
          {(id) => (
            <input
              id={id}
              required
              pattern="[A-Za-z0-9_][A-Za-z0-9_.\-]*"
              value={key}
              onChange={(event) => setKey(event.target.value)}
            />
          )}
        </Field>
        <Field label="URL" hint="https; not an internal address (the connections' rules)">
          {(id, describedBy) => (
            <input
              id={id}
              aria-describedby={describedBy}
              type="url"
              required
              value={url}
              onChange={(event) => setUrl(event.target.value)}
            />
          )}
        </Field>
        <div className="wide-field">
          <Field label="Format">
            {(id) => (
              <select id={id} required value={format} onChange={(event) => setFormat(event.target.value)}>
                <option value="" disabled>
                  Choose a format
                </option>
                {FORMATS.map((entry) => (
                  <option key={entry.value} value={entry.value}>
                    {entry.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <fieldset>
          <legend>Events</legend>
          <ErrorNotice message={catalogue.error} />
          {catalogue.loading && !catalogue.data ? <Loading what="events" /> : null}
          {eventTypes.map(({ type, title }) => (
            <label key={type} className="checkbox">
              <input
                type="checkbox"
                name="event"
                value={type}
                checked={events.includes(type)}
                onChange={(event) =>
                  setEvents(
                    event.target.checked
                      ? eventTypes
                          .map((known) => known.type)
                          .filter((known) => known === type || events.includes(known))
                      : events.filter((chosen) => chosen !== type),
                  )
                }
              />{' '}
              {title} <code>{type}</code>
            </label>
          ))}
        </fieldset>
        <ErrorNotice message={create.error} />
        <button type="submit" className="primary" disabled={create.pending}>
          Add subscription
        </button>
      </fieldset>
    </form>
  );
}

function DeliveryLog(props: { subscriptionKey: string; canChange: boolean }) {
  const { api } = useSession();
  const deliveries = useResource(
    () =>
      answer(
        api.GET('/v1/event-subscription/{key}/delivery', {
          params: { path: { key: props.subscriptionKey }, query: { size: 100 } },
        }),
      ),
    `deliveries of ${props.subscriptionKey}`,
  );
  const redeliver = useAction();
  const [done, setDone] = useState('');

  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries of {props.subscriptionKey}</h2>
      <ErrorNotice message={deliveries.error || redeliver.error} />
      {done ? <SuccessNotice message={done} /> : null}
      <button type="button" onClick={() => deliveries.reload()}>
        Refresh deliveries
      </button>
      {deliveries.loading && !deliveries.data ? (
        <Loading what="deliveries" />
      ) : deliveries.data && deliveries.data.items.length === 0 ? (
        <Empty>Nothing sent yet.</Empty>
      ) : deliveries.data ? (
        <table className="responsive">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Subject</th>
              <th scope="col">Occurred</th>
              <th scope="col">State</th>
              <th scope="col">Answer</th>
              <th scope="col">Attempts</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.data.items.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Event">{delivery.event_type}</td>
                <td data-label="Subject">
                  <code>{delivery.subject}</code>
                </td>
                <td data-label="Occurred">{formatDateTime(delivery.occurred_at)}</td>
                <td data-label="State">
                  <StatusBadge status={delivery.state} />
                </td>
                <td data-label="Answer">{delivery.last_status_code ?? delivery.last_error ?? '—'}</td>
                <td data-label="Attempts">{delivery.attempts.length}</td>
                <td data-label="Actions">
                  <button
                    type="button"
                    disabled={!props.canChange || redeliver.pending}
                    onClick={async () => {
                      setDone('');
                      if (
                        await redeliver.run(() =>
                          answer(
                            api.POST('/v1/event-subscription/{key}/delivery/{delivery_id}/redeliver', {
                              params: { path: { key: props.subscriptionKey, delivery_id: delivery.id } },
                            }),
                          ),
                        )
                      ) {
                        setDone(`${delivery.event_type} queued again (same webhook-id ${delivery.id}).`);
                        await deliveries.reload();
                      }
                    }}
                  >
                    Redeliver {delivery.event_type}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

/** The daily digest, per operator (PATCH /v1/user/{username} {digest}); changing it needs user:*. */
function DigestSettings() {
  const { api, info } = useSession();
  const canRead = holds(info.scopes, 'user:read');
  const canChange = holds(info.scopes, 'user:*');
  const users = useResource(() => (canRead ? answer(api.GET('/v1/user')) : Promise.resolve([])), 'users');
  const change = useAction();
  const [done, setDone] = useState('');
  if (!canRead) return null;
  return (
    <section className="card" aria-labelledby="digest-heading">
      <h2 id="digest-heading">Daily digest</h2>
      <p className="hint">
        One mail each local morning (LETHE_TIME_ZONE) to an operator with an email, listing overdue, due-soon
        and stuck requests, their open tasks and pending appeals; nothing when there is nothing.
      </p>
      <ErrorNotice message={users.error || change.error} />
      {done ? <SuccessNotice message={done} /> : null}
      {users.data && users.data.length === 0 ? <Empty>No operator account yet.</Empty> : null}
      {(users.data ?? []).map((user) => (
        <label key={user.username} className="checkbox">
          <input
            type="checkbox"
            checked={user.digest}
            disabled={!canChange || change.pending || !user.email}
            onChange={async (event) => {
              const digest = event.target.checked;
              setDone('');
              if (
                await change.run(() =>
                  answer(
                    api.PATCH('/v1/user/{username}', {
                      params: { path: { username: user.username } },
                      body: { digest },
                    }),
                  ),
                )
              ) {
                setDone(`The daily digest is ${digest ? 'on' : 'off'} for ${user.username}.`);
                await users.reload();
              }
            }}
          />{' '}
          Daily digest for {user.username}
          {user.email ? '' : ' (no email: set one on the Users page)'}
        </label>
      ))}
    </section>
  );
}
