-- The caller's address on every audit entry, as the throttles see it: the direct peer, or the forwarded
-- client behind a proxy listed in LETHE_TRUST_PROXY. Null for entries written by the CLI and the worker.
ALTER TABLE audit_log ADD COLUMN client_address text;
