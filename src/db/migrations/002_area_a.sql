-- Area A management resources: connections (with sealed secrets), DSR policies and rules, storage
-- destinations, and the ordered webhook lists. Sealed columns hold AES-256-GCM boxes (src/crypto/secret-box.ts).
CREATE TABLE connections (
  key text PRIMARY KEY,
  name text NOT NULL,
  connection_type text NOT NULL CHECK (connection_type = 'https'),
  access text NOT NULL,
  description text,
  secrets_url text,
  secrets_authorization_sealed bytea,
  oauth_grant_type text CHECK (oauth_grant_type IS NULL OR oauth_grant_type = 'client_credentials'),
  oauth_token_url text,
  oauth_scope text,
  oauth_client_id text,
  oauth_client_secret_sealed bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE storage_destinations (
  id text PRIMARY KEY,
  key text NOT NULL UNIQUE,
  name text NOT NULL,
  type text NOT NULL CHECK (type = 'local'),
  -- For 'local': a folder, relative to the data dir unless absolute.
  location text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE policies (
  id text PRIMARY KEY,
  key text NOT NULL UNIQUE,
  name text NOT NULL,
  drp_action text,
  execution_timeframe integer NOT NULL DEFAULT 45 CHECK (execution_timeframe > 0),
  client_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE rules (
  id text PRIMARY KEY,
  policy_id text NOT NULL REFERENCES policies (id) ON DELETE CASCADE,
  key text NOT NULL,
  name text NOT NULL,
  action_type text NOT NULL CHECK (action_type IN ('access', 'erasure')),
  -- {"strategy": "nullify" | "delete" | "forget" | "hash" | "random_string" | "string_rewrite", "configuration": {...}}
  masking_strategy jsonb,
  storage_destination_id text REFERENCES storage_destinations (id),
  -- '<table>.<attribute>', '<table>.*' or '*'
  targets text[] NOT NULL DEFAULT '{*}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (policy_id, key)
);

-- Pre- and post-execution webhooks of a policy. position is contiguous from 0 within (policy, timing);
-- the unique constraint is deferred so a reorder can shift rows inside one transaction.
CREATE TABLE policy_webhooks (
  id text PRIMARY KEY,
  policy_id text NOT NULL REFERENCES policies (id) ON DELETE CASCADE,
  timing text NOT NULL CHECK (timing IN ('pre', 'post')),
  key text NOT NULL,
  name text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('one_way', 'two_way')),
  connection_key text NOT NULL REFERENCES connections (key) ON DELETE RESTRICT,
  position integer NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (policy_id, timing, key),
  CONSTRAINT policy_webhooks_position_unique UNIQUE (policy_id, timing, position) DEFERRABLE INITIALLY DEFERRED
);
CREATE INDEX policy_webhooks_connection_idx ON policy_webhooks (connection_key);

-- Called on receipt of every privacy request, before approval.
CREATE TABLE pre_approval_webhooks (
  id text PRIMARY KEY,
  key text NOT NULL UNIQUE,
  name text NOT NULL,
  connection_key text NOT NULL REFERENCES connections (key) ON DELETE RESTRICT,
  position integer NOT NULL CHECK (position >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT pre_approval_webhooks_position_unique UNIQUE (position) DEFERRABLE INITIALLY DEFERRED
);

INSERT INTO storage_destinations (id, key, name, type, location)
VALUES ('sto_default', 'default_storage', 'Default storage', 'local', 'access-packages');

INSERT INTO policies (id, key, name, drp_action, execution_timeframe)
VALUES ('pol_default_access', 'default_access_policy', 'Default access policy', 'access', 45),
       ('pol_default_erasure', 'default_erasure_policy', 'Default erasure policy', 'erasure', 45);

INSERT INTO rules (id, policy_id, key, name, action_type, masking_strategy, storage_destination_id, targets)
VALUES ('rul_default_access', 'pol_default_access', 'default_access_rule', 'Default access rule', 'access',
        NULL, 'sto_default', '{*}'),
       ('rul_default_erasure', 'pol_default_erasure', 'default_erasure_rule', 'Default erasure rule', 'erasure',
        '{"strategy": "nullify", "configuration": {}}', NULL, '{*}');
