-- Trust by construction (DECISIONS.md, "Whom Lethe acts for"): an operator who accepts an authorized agent's
-- power of attorney names which of the request's identities the document establishes; only those (and the
-- subject's address) become trusted, and the agent's row keeps the list beside the operator's name.
ALTER TABLE privacy_request_agents ADD COLUMN authorized_identities text[] NOT NULL DEFAULT '{}';
