-- The rule runner asks the audit log "which erasures of this privacy request already committed?" on
-- every run and every datastore (its idempotence after a crash). Without an index on the actor that
-- question reads every erasure entry ever written: 36 ms on PostgreSQL and 89 ms on PGlite per lookup
-- with 300,000 entries, growing with the log; with this index 0.4 ms on PostgreSQL and 1.6 ms on PGlite.
CREATE INDEX audit_log_actor_idx ON audit_log (actor, action, seq);
