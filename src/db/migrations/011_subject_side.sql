-- The data subject's side: what the privacy center publishes, identity verification codes, the durable
-- outbox of messages to subjects, and the download links of access packages. No personal value is stored
-- in clear: codes and link tokens are kept as hashes, a message (recipient and bodies) is sealed.

-- One row: the privacy center's title, the organisation's name and the published actions.
CREATE TABLE privacy_center_settings (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  title text NOT NULL,
  organization_name text NOT NULL,
  actions jsonb NOT NULL DEFAULT '[]',
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The live verification code of a request awaiting its subject (HMAC under the installation's key).
CREATE TABLE identity_verifications (
  privacy_request_id text PRIMARY KEY REFERENCES privacy_requests (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  expires_at timestamptz NOT NULL,
  failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  sent_at timestamptz NOT NULL DEFAULT now()
);

-- Messages to data subjects, written in the transaction of the change that causes them and delivered by
-- the worker. content_sealed holds {to, subject, text, html}, sealed under the outbox key bound to the id.
CREATE TABLE outbox_messages (
  id text PRIMARY KEY,
  privacy_request_id text REFERENCES privacy_requests (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('verification_code', 'received', 'denied', 'completed', 'canceled')),
  content_sealed bytea NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  sent_at timestamptz
);
CREATE INDEX outbox_messages_due_idx ON outbox_messages (next_attempt_at) WHERE state = 'pending';
CREATE INDEX outbox_messages_created_idx ON outbox_messages (created_at DESC, id);
CREATE INDEX outbox_messages_request_idx ON outbox_messages (privacy_request_id);

-- Download links of access packages: the SHA-256 of a random 256-bit token.
CREATE TABLE access_package_links (
  token_hash bytea PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX access_package_links_request_idx ON access_package_links (privacy_request_id);

CREATE INDEX privacy_requests_unverified_idx ON privacy_requests (requested_at)
  WHERE status = 'identity_unverified';
