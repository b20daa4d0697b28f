-- Operator accounts (people signing in with a name and a password) and the tokens they hold. A token
-- belongs to either a client or an operator; deleting an operator revokes their tokens with them.
CREATE TABLE operators (
  username text PRIMARY KEY,
  -- scrypt$N$r$p$salt$hash (base64url): the parameters travel with the hash so they can be raised later.
  password_hash text NOT NULL,
  roles text[] NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE oauth_access_tokens ALTER COLUMN client_id DROP NOT NULL;
ALTER TABLE oauth_access_tokens ADD COLUMN username text REFERENCES operators (username) ON DELETE CASCADE;
ALTER TABLE oauth_access_tokens
  ADD CONSTRAINT oauth_access_tokens_one_holder CHECK ((client_id IS NULL) <> (username IS NULL));
CREATE INDEX oauth_access_tokens_username_idx ON oauth_access_tokens (username);

-- The audit log filtered by time (the console's and GET /v1/audit-log's from/to).
CREATE INDEX audit_log_at_idx ON audit_log (at);
