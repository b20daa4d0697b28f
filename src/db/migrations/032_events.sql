-- Events and integrations (docs/events.md): subscriptions to Lethe's events, the deliveries of each event
-- to each subscription (written in the transaction of the change the event reports, delivered by the
-- events worker with the outbox's claim-and-lease pattern), each attempt of a delivery, the once-only
-- events a request has had (due soon, stuck), and the operators' daily digest.

-- A receiver of events. The signing secret is sealed (src/events/secrets.ts); the URL passed the SSRF
-- check when it was saved and is checked again at each connection. 50 failed attempts in a row disable it.
CREATE TABLE event_subscriptions (
  key text PRIMARY KEY CHECK (char_length(key) <= 200),
  url text NOT NULL CHECK (char_length(url) <= 2000),
  events text[] NOT NULL,
  format text NOT NULL CHECK (format IN ('cloudevents', 'slack', 'teams')),
  enabled boolean NOT NULL DEFAULT true,
  secret_sealed bytea NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  disabled_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_subscriptions_events_idx ON event_subscriptions USING gin (events) WHERE enabled;

-- One event for one subscription. `id` is the Standard Webhooks `webhook-id`, the same on every attempt
-- and redelivery; `event_id` is the CloudEvents id, shared by the event's deliveries to all subscriptions.
-- `data` holds ids, statuses, policy key, jurisdiction and dates only: never an identity or subject data.
-- `seq` orders the deliveries of one request (its own events and its tasks') to one subscription: they
-- are delivered in that order.
CREATE TABLE event_deliveries (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  subscription_key text NOT NULL REFERENCES event_subscriptions (key) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  subject text NOT NULL,
  privacy_request_id text NOT NULL,
  occurred_at timestamptz NOT NULL,
  data jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- when retries stop (24 hours after the event, or after a redelivery)
  give_up_at timestamptz NOT NULL DEFAULT now() + interval '24 hours',
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX event_deliveries_due_idx ON event_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX event_deliveries_order_idx ON event_deliveries (subscription_key, privacy_request_id, seq) WHERE state = 'pending';
CREATE INDEX event_deliveries_log_idx ON event_deliveries (subscription_key, seq DESC);

-- Every attempt of a delivery: the answer's status code (none when the call failed before an answer) and
-- a reason safe to show (never a header or the receiver's body).
CREATE TABLE event_delivery_attempts (
  delivery_id text NOT NULL REFERENCES event_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- The events the sweep finds (privacy_request.due_soon, privacy_request.stuck, task.overdue): each once
-- per request or task (a stuck request's mark goes when it moves again, so a new stall is told again).
CREATE TABLE event_marks (
  subject text NOT NULL,
  event_type text NOT NULL,
  marked_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subject, event_type)
);

-- The daily digest (src/events/digest.ts): who asked for it, and the local day it last went out.
ALTER TABLE operators ADD COLUMN digest boolean NOT NULL DEFAULT false;
ALTER TABLE operators ADD COLUMN digest_sent_on date;

-- The sweep's look for open requests due soon (privacy_request.due_soon) reads this, not every request.
CREATE INDEX privacy_requests_open_due_idx ON privacy_requests (due_at)
  WHERE status NOT IN ('complete', 'denied', 'canceled');
