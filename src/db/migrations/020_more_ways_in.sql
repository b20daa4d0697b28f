-- More ways in (docs/decisions.md#more-ways-in): consent and opt-out requests, and the preferences they
-- leave behind.

-- Fides' `consent_preferences` of a request: [{data_use, opt_in}], as the request was made.
ALTER TABLE privacy_requests ADD COLUMN consent_preferences jsonb NOT NULL DEFAULT '[]'::jsonb;

-- A rule may now record consent (Fides' action name).
ALTER TABLE rules DROP CONSTRAINT rules_action_type_check;
ALTER TABLE rules ADD CONSTRAINT rules_action_type_check
  CHECK (action_type IN ('access', 'erasure', 'consent', 'update'));

-- Corrections (GDPR art. 16) a request asks for, [{attribute: "<table>.<attribute>", value}], sealed
-- (src/corrections/sealing.ts): the values are personal data.
ALTER TABLE privacy_requests ADD COLUMN corrections_sealed bytea;

-- The current preference of one identity for one data use. An identity is known by its kind and the HMAC
-- of its normalised value under the consent key (src/consent/identity-index.ts), never by the value.
CREATE TABLE consent_preferences (
  identity_kind text NOT NULL,
  identity_index bytea NOT NULL,
  data_use text NOT NULL,
  opt_in boolean NOT NULL,
  -- 'privacy_request' (a consent rule ran) or 'gpc' (a Global Privacy Control signal)
  source text NOT NULL,
  privacy_request_id text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (identity_kind, identity_index, data_use)
);

-- Every preference ever recorded, newest last; a rerun of one request's rule records nothing twice.
CREATE TABLE consent_history (
  id bigserial PRIMARY KEY,
  identity_kind text NOT NULL,
  identity_index bytea NOT NULL,
  data_use text NOT NULL,
  opt_in boolean NOT NULL,
  source text NOT NULL,
  privacy_request_id text,
  recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX consent_history_identity_idx ON consent_history (identity_kind, identity_index, id);
CREATE UNIQUE INDEX consent_history_once_per_request_idx
  ON consent_history (privacy_request_id, source, identity_kind, identity_index, data_use)
  WHERE privacy_request_id IS NOT NULL;

-- Authorized agents (CCPA §7063): who acts for the subject of a public request, sealed (name and email,
-- src/agents/sealing.ts), when the agent proved their email, and how they were authorised: the subject
-- confirmed through a mailed link (the link's token kept as its SHA-256 only, single use) or an operator
-- accepted a power of attorney, with the reason.
CREATE TABLE privacy_request_agents (
  privacy_request_id text PRIMARY KEY REFERENCES privacy_requests (id) ON DELETE CASCADE,
  agent_sealed bytea NOT NULL,
  email_verified_at timestamptz,
  confirm_token_hash bytea UNIQUE,
  confirm_expires_at timestamptz,
  authorization_kind text CHECK (authorization_kind IN ('subject_confirmed', 'power_of_attorney')),
  authorized_at timestamptz,
  authorized_by text,
  authorization_reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The subject is mailed the link to confirm their agent.
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_kind_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_kind_check
  CHECK (kind IN ('verification_code', 'received', 'denied', 'completed', 'canceled', 'agent_confirmation'));

-- The full access report (GDPR art. 15(1)): what the organisation says of each datastore, and of each
-- connection whose receiver holds data: purposes, recipients, retention, source, automated decisions.
-- Written by src/disclosure/repository.ts only; a datastore's or connection's row goes with it.
CREATE TABLE disclosures (
  kind text NOT NULL CHECK (kind IN ('datastore', 'connection')),
  name text NOT NULL,
  purposes jsonb NOT NULL,
  recipients jsonb NOT NULL,
  retention text NOT NULL,
  source text NOT NULL,
  automated_decisions text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, name)
);

-- Recipients of an erasure (GDPR art. 19): the names of the connections its post-execution webhooks
-- told, recorded when the erasure completes; null for any other request.
ALTER TABLE privacy_requests ADD COLUMN recipients_notified jsonb;
