-- Operators from the company's identity provider (docs/operators.md): custom roles, clients that act for
-- the person who made them, accounts made by OpenID Connect sign-in or SCIM, and SCIM groups.

-- Custom roles: a named set of scopes beside the built-in four (which stay in code, src/auth/scopes.ts).
CREATE TABLE roles (
  name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_-]{0,62}$'),
  scopes text[] NOT NULL,
  description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The person a client acts for (`user:<username>`, or `client:<id>` for the root client and the CLI):
-- two-person rules compare people, so a client counts as the operator who created it. A disabled client
-- (its operator deactivated) gets no token.
ALTER TABLE oauth_clients ADD COLUMN acts_for text;
ALTER TABLE oauth_clients ADD COLUMN disabled_at timestamptz;
CREATE INDEX oauth_clients_acts_for_idx ON oauth_clients (acts_for);
-- Clients made before: the audit says who created them; a client made by a client acts for that one's person.
UPDATE oauth_clients c SET acts_for = a.actor
  FROM audit_log a WHERE a.action = 'client.create' AND a.details ->> 'client_id' = c.id;
UPDATE oauth_clients c SET acts_for = maker.acts_for
  FROM oauth_clients maker WHERE c.acts_for = 'client:' || maker.id AND maker.acts_for IS NOT NULL;
UPDATE oauth_clients SET acts_for = 'client:' || id WHERE acts_for IS NULL;
-- Appeals denied through a client: the denier is the client's person.
UPDATE privacy_request_appeals a SET denied_by = c.acts_for
  FROM oauth_clients c WHERE a.denied_by = 'client:' || c.id;

-- Accounts from the identity provider have no password; `active` false (SCIM) refuses every sign-in.
ALTER TABLE operators ALTER COLUMN password_hash DROP NOT NULL;
ALTER TABLE operators ADD COLUMN active boolean NOT NULL DEFAULT true;
-- `oidc` (made at first sign-in) or `scim` (provisioned); null for accounts made in Lethe.
ALTER TABLE operators ADD COLUMN provider text CHECK (provider IN ('oidc', 'scim'));
-- The provider's `sub` of the person: the same person signs in to the same account, whatever its name.
ALTER TABLE operators ADD COLUMN provider_subject text;
CREATE UNIQUE INDEX operators_provider_subject_idx ON operators (provider_subject) WHERE provider_subject IS NOT NULL;
-- The groups the provider last said the person is in (the ID token's claim at the last sign-in).
ALTER TABLE operators ADD COLUMN groups text[] NOT NULL DEFAULT '{}';
ALTER TABLE operators ADD COLUMN scim_id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE;
ALTER TABLE operators ADD COLUMN external_id text CHECK (char_length(external_id) <= 500);
ALTER TABLE operators ADD COLUMN display_name text CHECK (char_length(display_name) <= 500);
ALTER TABLE operators ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();

-- An OpenID Connect sign-in under way: the state's digest, bound to the browser that started it (a cookie's
-- digest). PKCE verifier and nonce are derived from the state under a server key, so none is stored.
CREATE TABLE oidc_sign_ins (
  state_digest bytea PRIMARY KEY,
  browser_digest bytea NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oidc_sign_ins_expiry_idx ON oidc_sign_ins (expires_at);

-- The one-time code that hands a finished sign-in to the console, which trades it for its access token.
CREATE TABLE oidc_handoffs (
  code_digest bytea PRIMARY KEY,
  username text NOT NULL REFERENCES operators (username) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL
);

-- SCIM groups (RFC 7643 section 4.2); their display names map to roles through LETHE_OIDC_ROLE_MAP.
CREATE TABLE scim_groups (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  display_name text NOT NULL UNIQUE CHECK (char_length(display_name) BETWEEN 1 AND 500),
  external_id text CHECK (char_length(external_id) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE scim_group_members (
  group_id uuid NOT NULL REFERENCES scim_groups (id) ON DELETE CASCADE,
  username text NOT NULL REFERENCES operators (username) ON DELETE CASCADE,
  PRIMARY KEY (group_id, username)
);
CREATE INDEX scim_group_members_username_idx ON scim_group_members (username);
