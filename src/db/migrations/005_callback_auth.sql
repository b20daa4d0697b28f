-- Outbound authentication of callbacks (src/callbacks/): every connection's signing secret, sealed because
-- it must sign (not hashed), with the previous secret kept for an optional grace period after a rotation;
-- and the cache of OAuth access tokens fetched from targets' token URLs, shared by every worker process.
-- Connections created before this migration get their signing secret on their first signed callback.
ALTER TABLE connections
  ADD COLUMN signing_secret_sealed bytea,
  ADD COLUMN previous_signing_secret_sealed bytea,
  ADD COLUMN previous_signing_secret_expires_at timestamptz;

CREATE TABLE target_oauth_tokens (
  connection_key text PRIMARY KEY REFERENCES connections (key) ON DELETE CASCADE,
  -- SHA-256 over the OAuth configuration the token was fetched with; after any change it no longer matches.
  config_fingerprint text NOT NULL,
  access_token_sealed bytea NOT NULL,
  -- From this moment callers fetch a new token: shortly before the token server's expires_in runs out.
  refresh_at timestamptz NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now()
);
