-- Privacy requests and their durable execution. A request's identities are sealed (AES-256-GCM under the
-- identity-cache key, bound to the request id); no personal value is stored in clear. The execution plan
-- (ordered steps: pre-approval calls, then on approval the pre-execution webhooks, the rules, the
-- post-execution webhooks) is snapshotted into privacy_request_steps, and next_step is the cursor a
-- worker advances in the same transaction that records a step's completion.
CREATE TABLE privacy_requests (
  id text PRIMARY KEY,
  external_id text,
  status text NOT NULL CHECK (status IN ('identity_unverified', 'requires_input', 'pending', 'approved',
                                         'denied', 'in_processing', 'paused', 'complete', 'canceled', 'error')),
  policy_id text NOT NULL REFERENCES policies (id) ON DELETE RESTRICT,
  client_id text,
  submitted_by text,
  origin text,
  source text,
  location text,
  custom_fields jsonb NOT NULL DEFAULT '[]',
  requested_at timestamptz NOT NULL DEFAULT now(),
  started_processing_at timestamptz,
  finished_processing_at timestamptz,
  reviewed_at timestamptz,
  reviewed_by text,
  finalized_at timestamptz,
  finalized_by text,
  identity_verified_at timestamptz,
  cancel_reason text,
  canceled_at timestamptz,
  paused_at timestamptz,
  -- the step whose two_way webhook halted the request; its reply-to-token is valid only while this is set
  paused_step integer,
  error_reason text,
  identity_sealed bytea,
  identity_expires_at timestamptz NOT NULL,
  identity_purged_at timestamptz,
  next_step integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX privacy_requests_status_idx ON privacy_requests (status, requested_at);
CREATE INDEX privacy_requests_external_id_idx ON privacy_requests (external_id);
CREATE INDEX privacy_requests_requested_at_idx ON privacy_requests (requested_at, id);
CREATE INDEX privacy_requests_paused_idx ON privacy_requests (paused_at) WHERE status = 'paused';
CREATE INDEX privacy_requests_identity_expiry_idx ON privacy_requests (identity_expires_at)
  WHERE identity_sealed IS NOT NULL;

-- The snapshotted plan. Webhook fields are copied so that editing a policy's webhooks later does not
-- change a request already approved.
CREATE TABLE privacy_request_steps (
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  position integer NOT NULL CHECK (position >= 0),
  kind text NOT NULL CHECK (kind IN ('pre_approval', 'pre', 'rules', 'post')),
  webhook_id text,
  webhook_key text,
  webhook_name text,
  direction text CHECK (direction IS NULL OR direction IN ('one_way', 'two_way')),
  connection_key text,
  completed_at timestamptz,
  -- pre_approval only: the receiver's later answer
  answer text CHECK (answer IS NULL OR answer IN ('eligible', 'not_eligible')),
  answered_at timestamptz,
  PRIMARY KEY (privacy_request_id, position),
  CHECK ((kind = 'rules') = (webhook_id IS NULL))
);

-- Every transition and every webhook call of a request. Never secrets, identities nor response bodies.
CREATE TABLE privacy_request_log (
  seq bigserial PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  kind text NOT NULL CHECK (kind IN ('transition', 'webhook', 'rules', 'note')),
  from_status text,
  to_status text,
  webhook_key text,
  timing text,
  direction text,
  target_host text,
  http_status integer,
  duration_ms integer,
  attempt integer,
  error text,
  message text,
  details jsonb
);
CREATE INDEX privacy_request_log_request_idx ON privacy_request_log (privacy_request_id, seq);

-- Reply-to-tokens issued (resume and pre-approval answers). A token works once: used_at is set in the
-- transaction that acts on it.
CREATE TABLE reply_tokens (
  jti text PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  step integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('resume', 'pre_approval')),
  issued_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX reply_tokens_request_idx ON reply_tokens (privacy_request_id);
CREATE INDEX reply_tokens_expiry_idx ON reply_tokens (expires_at);
