// SQL of the event subscriptions and of their delivery log. The deliveries themselves are written by
// emit.ts (inside the changes they report) and worked by delivery-repository.ts.
import type { Queryable } from '../db/database.ts';
import type { EventFormat, EventType } from './catalog.ts';

export interface SubscriptionRow {
  key: string;
  url: string;
  events: EventType[];
  format: EventFormat;
  enabled: boolean;
  secret_sealed: Uint8Array;
  consecutive_failures: number;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface SubscriptionFields {
  url: string;
  events: readonly EventType[];
  format: EventFormat;
  enabled: boolean;
}

export interface DeliveryRow {
  id: string;
  subscription_key: string;
  event_id: string;
  event_type: EventType;
  subject: string;
  privacy_request_id: string;
  occurred_at: Date;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  give_up_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export const subscriptionRepository = {
  async find(db: Queryable, key: string): Promise<SubscriptionRow | undefined> {
    const { rows } = await db.query<SubscriptionRow>('SELECT * FROM event_subscriptions WHERE key = $1', [
      key,
    ]);
    return rows[0];
  },

  async lock(tx: Queryable, key: string): Promise<SubscriptionRow | undefined> {
    const { rows } = await tx.query<SubscriptionRow>(
      'SELECT * FROM event_subscriptions WHERE key = $1 FOR UPDATE',
      [key],
    );
    return rows[0];
  },

  async page(db: Queryable, limit: number, offset: number): Promise<SubscriptionRow[]> {
    const { rows } = await db.query<SubscriptionRow>(
      'SELECT * FROM event_subscriptions ORDER BY key LIMIT $1 OFFSET $2',
      [limit, offset],
    );
    return rows;
  },

  async count(db: Queryable): Promise<number> {
    const { rows } = await db.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM event_subscriptions',
    );
    return rows[0]?.total ?? 0;
  },

  async insert(tx: Queryable, key: string, fields: SubscriptionFields, secretSealed: Buffer) {
    const { rows } = await tx.query<SubscriptionRow>(
      `INSERT INTO event_subscriptions (key, url, events, format, enabled, secret_sealed)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [key, fields.url, fields.events, fields.format, fields.enabled, secretSealed],
    );
    return rows[0] as SubscriptionRow;
  },

  /** Replaces the fields; enabling a subscription starts its count of failures in a row anew. */
  async update(tx: Queryable, key: string, fields: SubscriptionFields): Promise<SubscriptionRow> {
    const { rows } = await tx.query<SubscriptionRow>(
      `UPDATE event_subscriptions
          SET url = $2, events = $3, format = $4, enabled = $5, updated_at = now(),
              consecutive_failures = CASE WHEN $5 AND NOT enabled THEN 0 ELSE consecutive_failures END,
              disabled_at = CASE WHEN $5 THEN NULL ELSE disabled_at END
        WHERE key = $1 RETURNING *`,
      [key, fields.url, fields.events, fields.format, fields.enabled],
    );
    return rows[0] as SubscriptionRow;
  },

  async replaceSecret(tx: Queryable, key: string, secretSealed: Buffer): Promise<void> {
    await tx.query('UPDATE event_subscriptions SET secret_sealed = $2, updated_at = now() WHERE key = $1', [
      key,
      secretSealed,
    ]);
  },

  async remove(tx: Queryable, key: string): Promise<boolean> {
    const { rowCount } = await tx.query('DELETE FROM event_subscriptions WHERE key = $1', [key]);
    return (rowCount ?? 0) > 0;
  },

  async deliveries(db: Queryable, key: string, limit: number, offset: number): Promise<DeliveryRow[]> {
    const { rows } = await db.query<DeliveryRow>(
      `SELECT * FROM event_deliveries WHERE subscription_key = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3`,
      [key, limit, offset],
    );
    return rows;
  },

  async deliveryCount(db: Queryable, key: string): Promise<number> {
    const { rows } = await db.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM event_deliveries WHERE subscription_key = $1',
      [key],
    );
    return rows[0]?.total ?? 0;
  },

  async attemptsOf(db: Queryable, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await db.query<AttemptRow>(
      'SELECT * FROM event_delivery_attempts WHERE delivery_id = ANY ($1) ORDER BY delivery_id, attempt',
      [deliveryIds],
    );
    return rows;
  },

  /**
   * Puts a delivery back in line under its own id (the receiver sees the same webhook-id), due now and
   * retried for another 24 hours. Answers false when the subscription has no such delivery.
   */
  async redeliver(tx: Queryable, key: string, deliveryId: string): Promise<boolean> {
    const { rowCount } = await tx.query(
      `UPDATE event_deliveries
          SET state = 'pending', next_attempt_at = now(), give_up_at = now() + interval '24 hours',
              delivered_at = NULL
        WHERE id = $1 AND subscription_key = $2`,
      [deliveryId, key],
    );
    return (rowCount ?? 0) > 0;
  },
};
