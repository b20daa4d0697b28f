-- Management clients and their access tokens. Secrets and tokens are stored only as SHA-256 digests.
CREATE TABLE oauth_clients (
  id text PRIMARY KEY,
  name text NOT NULL,
  secret_digest bytea NOT NULL,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_access_tokens (
  token_digest bytea PRIMARY KEY,
  client_id text NOT NULL,
  scopes text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_access_tokens_client_idx ON oauth_access_tokens (client_id);
CREATE INDEX oauth_access_tokens_expiry_idx ON oauth_access_tokens (expires_at);

-- Operator switches that every API process must see at once (maintenance mode).
CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
