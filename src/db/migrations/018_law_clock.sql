-- The law's clock (issue 26, docs/deadlines.md): each request's jurisdiction and statutory due date, its
-- acknowledgement, its one extension, duplicates and excess, and the appeal of a denial. due_at is stored
-- once computed (UTC) so that a later change of a policy's timeframe never moves a promise already made.
ALTER TABLE policies ADD COLUMN jurisdiction text;

ALTER TABLE privacy_requests
  ADD COLUMN jurisdiction text,
  ADD COLUMN due_at timestamptz,
  ADD COLUMN acknowledged_at timestamptz,
  ADD COLUMN extended_at timestamptz,
  ADD COLUMN extension_reason text,
  ADD COLUMN denial_reason text,
  ADD COLUMN duplicate_of text REFERENCES privacy_requests (id) ON DELETE SET NULL,
  ADD COLUMN excessive boolean NOT NULL DEFAULT false,
  -- The HMAC of a trusted request's email (src/privacy-requests/duplicates.ts), set once it is verified or
  -- was made by an operator: how duplicates and excess are found without reading an identity.
  ADD COLUMN identity_index bytea;

CREATE INDEX privacy_requests_identity_index_idx ON privacy_requests (identity_index)
  WHERE identity_index IS NOT NULL;

-- Requests received before the clock: their due date is the one the API showed them with.
UPDATE privacy_requests r
   SET due_at = r.requested_at + p.execution_timeframe * interval '1 day'
  FROM policies p
 WHERE p.id = r.policy_id;


-- The appeal of a denied request: one per request. The link's token is kept as its SHA-256 only, and is
-- spent (token_hash cleared) by the appeal it opens.
CREATE TABLE privacy_request_appeals (
  privacy_request_id text PRIMARY KEY REFERENCES privacy_requests (id) ON DELETE CASCADE,
  token_hash bytea UNIQUE,
  window_ends_at timestamptz NOT NULL,
  denied_by text,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'pending', 'upheld', 'reversed')),
  statement text,
  submitted_at timestamptz,
  due_at timestamptz,
  decided_at timestamptz,
  decided_by text,
  decision_reason text
);

ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_kind_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_kind_check
  CHECK (kind IN ('verification_code', 'received', 'denied', 'completed', 'canceled', 'extended',
                  'appeal_upheld'));
