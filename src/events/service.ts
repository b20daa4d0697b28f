// Event subscriptions (docs/events.md): who receives which events, in which format. Owns their rules: the
// events and format must be known, the URL passes the connections' SSRF check, the signing secret is
// made here, shown once (on creation and rotation) and sealed by secrets.ts. A refused subscription
// changes nothing. It never returns, logs or audits a secret, nor the URL's path (it often holds a token).
import { type ChangeActor, recordChange } from '../audit/audit-log.ts';
import type { Config } from '../config.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database } from '../db/database.ts';
import { invalid, notFound } from '../errors.ts';
import { assertAllowedDestination } from '../net/destination-guard.ts';
import { pageOf } from '../validation/page.ts';
import { EVENT_FORMATS, EVENT_TYPES, type EventFormat, type EventType, isEventType } from './catalog.ts';
import {
  type AttemptRow,
  type DeliveryRow,
  type SubscriptionRow,
  subscriptionRepository as repo,
} from './repository.ts';
import type { SubscriptionBody, SubscriptionView } from './schemas.ts';
import { generateEventSecret, sealEventSecret } from './secrets.ts';

const MASK = '***';

/** The URL as answers show it: scheme and host, the rest masked (Slack and Teams URLs are tokens). */
export function maskSubscriptionUrl(url: string): string {
  const parsed = URL.parse(url);
  if (!parsed) return MASK;
  const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  return `${parsed.origin}${rest === '/' || rest === '' ? '/' : `/${MASK}`}`;
}

function toView(row: SubscriptionRow): SubscriptionView {
  return {
    key: row.key,
    url: maskSubscriptionUrl(row.url),
    events: row.events,
    format: row.format,
    enabled: row.enabled,
    consecutive_failures: row.consecutive_failures,
    disabled_at: row.disabled_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function deliveryView(row: DeliveryRow, attempts: readonly AttemptRow[]) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    subject: row.subject,
    privacy_request_id: row.privacy_request_id,
    occurred_at: row.occurred_at.toISOString(),
    state: row.state,
    next_attempt_at: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
    delivered_at: row.delivered_at?.toISOString() ?? null,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: attempt.attempted_at.toISOString(),
      status_code: attempt.status_code,
      error: attempt.error,
      duration_ms: attempt.duration_ms,
    })),
  };
}

export class EventSubscriptionService {
  readonly #db: Database;
  readonly #config: Config;
  readonly #keyring: Keyring;

  constructor(services: { db: Database; config: Config; keyring: Keyring }) {
    this.#db = services.db;
    this.#config = services.config;
    this.#keyring = services.keyring;
  }

  async list(page: number, size: number) {
    const [rows, total] = await Promise.all([
      repo.page(this.#db, size, (page - 1) * size),
      repo.count(this.#db),
    ]);
    return pageOf(rows.map(toView), total, page, size);
  }

  async get(key: string): Promise<SubscriptionView> {
    const row = await repo.find(this.#db, key);
    if (!row) throw notFound(`No event subscription with key ${key}.`);
    return toView(row);
  }

  /**
   * Creates the subscription (answering its secret, this once: `created`) or replaces its url, events,
   * format and enabled. Everything is checked before anything is stored.
   */
  async put(
    by: ChangeActor,
    key: string,
    body: SubscriptionBody,
  ): Promise<
    | { created: true; view: SubscriptionView & { secret: string } }
    | { created: false; view: SubscriptionView }
  > {
    const events = checkEvents(body.events);
    const format = checkFormat(body.format);
    const existing = await repo.find(this.#db, key);
    // The masked URL a GET showed, sent back unchanged, keeps the stored one.
    const url = existing && body.url === maskSubscriptionUrl(existing.url) ? existing.url : body.url.trim();
    await assertAllowedDestination(url, this.#config, 'url');
    const fields = { url, events, format, enabled: body.enabled ?? true };
    return this.#db.transaction(async (tx) => {
      const current = await repo.lock(tx, key);
      const details = { key, events, format, enabled: fields.enabled };
      if (current) {
        const row = await repo.update(tx, key, fields);
        await recordChange(tx, by, 'event-subscription.update', {
          ...details,
          url_changed: url !== current.url,
        });
        return { created: false as const, view: toView(row) };
      }
      const secret = generateEventSecret();
      const row = await repo.insert(tx, key, fields, sealEventSecret(this.#keyring, key, secret));
      await recordChange(tx, by, 'event-subscription.create', details);
      return { created: true as const, view: { ...toView(row), secret } };
    });
  }

  async rotateSecret(by: ChangeActor, key: string): Promise<{ key: string; secret: string }> {
    return this.#db.transaction(async (tx) => {
      if (!(await repo.lock(tx, key))) throw notFound(`No event subscription with key ${key}.`);
      const secret = generateEventSecret();
      await repo.replaceSecret(tx, key, sealEventSecret(this.#keyring, key, secret));
      await recordChange(tx, by, 'event-subscription.secret.rotate', { key });
      return { key, secret };
    });
  }

  async remove(by: ChangeActor, key: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      if (!(await repo.remove(tx, key))) throw notFound(`No event subscription with key ${key}.`);
      await recordChange(tx, by, 'event-subscription.delete', { key });
    });
  }

  /** The subscription's deliveries, newest first, each with its attempts. */
  async deliveries(key: string, page: number, size: number) {
    if (!(await repo.find(this.#db, key))) throw notFound(`No event subscription with key ${key}.`);
    const [rows, total] = await Promise.all([
      repo.deliveries(this.#db, key, size, (page - 1) * size),
      repo.deliveryCount(this.#db, key),
    ]);
    const attempts = await repo.attemptsOf(
      this.#db,
      rows.map((row) => row.id),
    );
    const items = rows.map((row) =>
      deliveryView(
        row,
        attempts.filter((attempt) => attempt.delivery_id === row.id),
      ),
    );
    return pageOf(items, total, page, size);
  }

  async redeliver(by: ChangeActor, key: string, deliveryId: string): Promise<void> {
    await this.#db.transaction(async (tx) => {
      if (!(await repo.redeliver(tx, key, deliveryId)))
        throw notFound(`The event subscription ${key} has no delivery ${deliveryId}.`);
      await recordChange(tx, by, 'event-subscription.redeliver', { key, delivery_id: deliveryId });
    });
  }
}

function checkEvents(names: readonly string[]): EventType[] {
  const unknown = names.filter((name) => !isEventType(name));
  if (unknown.length > 0)
    throw invalid(
      `events: unknown event ${unknown.map((name) => JSON.stringify(name)).join(', ')}; the events are ${EVENT_TYPES.join(', ')}.`,
    );
  return [...new Set(names)] as EventType[];
}

function checkFormat(format: string): EventFormat {
  if (!(EVENT_FORMATS as readonly string[]).includes(format))
    throw invalid(
      `format: unknown format ${JSON.stringify(format)}; the formats are ${EVENT_FORMATS.join(', ')}.`,
    );
  return format as EventFormat;
}
