// An ordered webhook list (a policy's pre- or post-execution webhooks, or the pre-approval webhooks):
// reorder by HTML5 drag and drop or with the move up / move down buttons, toggle direction, add, remove.
// Every change goes to the API at once and the list is reloaded from its answer: the service's order
// is the truth, the page never keeps a private one.
import { type DragEvent, type FormEvent, useState } from 'react';
import { ConfirmButton, Empty, ErrorNotice, Field, Loading } from '../components.tsx';
import { useAction, useResource } from '../hooks.ts';
import { Guarded, useCan } from '../scopes.tsx';
import { useSession } from '../session.tsx';
import type { Connection, Direction, Webhook } from '../schema.ts';
import { webhookCalls, type WebhookListItem, type WebhookListSource } from './webhook-calls.ts';

/** The scope every change of a webhook list needs (adding, removing, reordering, switching direction). */
const WEBHOOK_WRITE = 'webhook:create_or_update';

export interface WebhookListProps {
  /** Heading of the section, e.g. "Pre-execution webhooks". */
  title: string;
  /** Which list: a policy's webhooks of one timing, or the pre-approval webhooks. */
  source: WebhookListSource;
  /** Policy webhooks have a direction and single paths (PATCH/DELETE); pre-approval webhooks have neither. */
  policyWebhook: boolean;
  connections: Connection[];
  description: string;
}

function asListItem(webhook: Webhook, policyWebhook: boolean): WebhookListItem {
  const item: WebhookListItem = {
    connection_config_key: webhook.connection_config_key,
    key: webhook.key,
    name: webhook.name,
  };
  if (policyWebhook) item.direction = webhook.direction === 'two_way' ? 'two_way' : 'one_way';
  return item;
}

function AddWebhookForm(props: WebhookListProps & { onAdd: (item: WebhookListItem) => Promise<boolean> }) {
  const [key, setKey] = useState('');
  const [name, setName] = useState('');
  const [connectionKey, setConnectionKey] = useState('');
  const [direction, setDirection] = useState<Direction>('one_way');

  async function submit(event: FormEvent) {
    event.preventDefault();
    const item: WebhookListItem = {
      connection_config_key: connectionKey || (props.connections[0]?.key ?? ''),
      key: key.trim(),
      name: name.trim(),
    };
    if (props.policyWebhook) item.direction = direction;
    if (await props.onAdd(item)) {
      setKey('');
      setName('');
    }
  }

  if (props.connections.length === 0) {
    return <p className="hint">Create a connection first: every webhook calls through one.</p>;
  }
  return (
    <form onSubmit={submit} className="add-webhook" aria-label={`Add to ${props.title.toLowerCase()}`}>
      <Guarded scope={WEBHOOK_WRITE} className="inline-form">
        <Field label="Webhook key">
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
        <Field label="Webhook name">
          {(id) => <input id={id} required value={name} onChange={(event) => setName(event.target.value)} />}
        </Field>
        <Field label="Connection">
          {(id) => (
            <select id={id} value={connectionKey} onChange={(event) => setConnectionKey(event.target.value)}>
              {props.connections.map((connection) => (
                <option key={connection.key} value={connection.key}>
                  {connection.name} ({connection.key})
                </option>
              ))}
            </select>
          )}
        </Field>
        {props.policyWebhook ? (
          <Field label="Direction">
            {(id) => (
              <select
                id={id}
                value={direction}
                onChange={(event) => setDirection(event.target.value as Direction)}
              >
                <option value="one_way">one way (no answer awaited)</option>
                <option value="two_way">two way (answer awaited; may halt)</option>
              </select>
            )}
          </Field>
        ) : null}
        <button type="submit" className="primary">
          Add webhook
        </button>
      </Guarded>
    </form>
  );
}

export function WebhookList(props: WebhookListProps) {
  const { api } = useSession();
  const calls = webhookCalls(api, props.source);
  const listId = `${props.source.policyKey ?? ''}/${props.source.timing}`;
  const list = useResource(() => calls.list(), listId);
  const action = useAction();
  const canChange = useCan(WEBHOOK_WRITE);
  const [dragging, setDragging] = useState<string | null>(null);
  const [dropIndex, setDropIndex] = useState<number | null>(null);
  const [announcement, setAnnouncement] = useState('');
  const webhooks = list.data ?? [];

  async function putList(items: Webhook[]) {
    await calls.replace(items.map((webhook) => asListItem(webhook, props.policyWebhook)));
  }

  async function move(key: string, to: number) {
    const from = webhooks.findIndex((webhook) => webhook.key === key);
    if (from < 0 || to < 0 || to >= webhooks.length || from === to) return;
    const ok = await action.run(async () => {
      if (calls.update) {
        await calls.update(key, { order: to });
      } else {
        const reordered = webhooks.filter((webhook) => webhook.key !== key);
        reordered.splice(to, 0, webhooks[from] as Webhook);
        await putList(reordered);
      }
    });
    await list.reload();
    if (ok) setAnnouncement(`Moved ${webhooks[from]?.name} to position ${to + 1} of ${webhooks.length}.`);
  }

  async function remove(key: string) {
    await action.run(async () => {
      if (calls.remove) await calls.remove(key);
      else await putList(webhooks.filter((webhook) => webhook.key !== key));
    });
    await list.reload();
  }

  async function toggleDirection(webhook: Webhook) {
    const direction: Direction = webhook.direction === 'two_way' ? 'one_way' : 'two_way';
    await action.run(async () => calls.update?.(webhook.key, { direction }));
    await list.reload();
  }

  async function add(item: WebhookListItem): Promise<boolean> {
    const ok = await action.run(() =>
      calls.replace([...webhooks.map((webhook) => asListItem(webhook, props.policyWebhook)), item]),
    );
    await list.reload();
    return ok;
  }

  function onDragStart(event: DragEvent, key: string) {
    event.dataTransfer.effectAllowed = 'move';
    event.dataTransfer.setData('text/plain', key);
    setDragging(key);
  }

  function onDragOver(event: DragEvent, index: number) {
    if (!dragging) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    setDropIndex(index);
  }

  async function onDrop(event: DragEvent, index: number) {
    event.preventDefault();
    const key = dragging ?? event.dataTransfer.getData('text/plain');
    setDragging(null);
    setDropIndex(null);
    if (key) await move(key, index);
  }

  const headingId = `${listId.replace(/\W+/g, '-')}-heading`;
  return (
    <section aria-labelledby={headingId} className="webhook-list">
      <h2 id={headingId}>{props.title}</h2>
      <p className="hint">{props.description}</p>
      <ErrorNotice message={list.error || action.error} />
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      {list.loading && !list.data ? (
        <Loading what="webhooks" />
      ) : webhooks.length === 0 ? (
        <Empty>No webhook here yet.</Empty>
      ) : (
        <ol className="webhooks" aria-label={props.title}>
          {webhooks.map((webhook, index) => (
            <li
              key={webhook.key}
              data-key={webhook.key}
              draggable={!action.pending && canChange}
              className={[
                'webhook',
                dragging === webhook.key ? 'dragging' : '',
                dropIndex === index && dragging !== webhook.key ? 'drop-target' : '',
              ].join(' ')}
              onDragStart={(event) => onDragStart(event, webhook.key)}
              onDragOver={(event) => onDragOver(event, index)}
              onDragLeave={() => setDropIndex((current) => (current === index ? null : current))}
              onDrop={(event) => void onDrop(event, index)}
              onDragEnd={() => {
                setDragging(null);
                setDropIndex(null);
              }}
            >
              <span className="drag-handle" aria-hidden="true">
                ⠿
              </span>
              <span className="webhook-position">{index + 1}.</span>
              <span className="webhook-name">
                <strong>{webhook.name}</strong> <code>{webhook.key}</code>
                <small className="hint"> via {webhook.connection_config_key}</small>
              </span>
              {props.policyWebhook ? (
                <button
                  type="button"
                  className="direction"
                  aria-label={`Direction of ${webhook.name}: ${webhook.direction === 'two_way' ? 'two way' : 'one way'}. Switch to ${webhook.direction === 'two_way' ? 'one way' : 'two way'}`}
                  disabled={action.pending || !canChange}
                  onClick={() => void toggleDirection(webhook)}
                >
                  {webhook.direction === 'two_way' ? '⇄ two way' : '→ one way'}
                </button>
              ) : null}
              <span className="webhook-actions">
                <button
                  type="button"
                  aria-label={`Move ${webhook.name} up`}
                  disabled={index === 0 || action.pending || !canChange}
                  onClick={() => void move(webhook.key, index - 1)}
                >
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={`Move ${webhook.name} down`}
                  disabled={index === webhooks.length - 1 || action.pending || !canChange}
                  onClick={() => void move(webhook.key, index + 1)}
                >
                  ↓
                </button>
                <ConfirmButton
                  label="Remove"
                  confirmLabel={`Remove ${webhook.name}`}
                  disabled={action.pending || !canChange}
                  onConfirm={() => remove(webhook.key)}
                />
              </span>
            </li>
          ))}
        </ol>
      )}
      <AddWebhookForm {...props} onAdd={add} />
    </section>
  );
}
