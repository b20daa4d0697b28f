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

-- The audit log and the privacy-request log are partitioned by month (UTC), so that retention
-- (LETHE_AUDIT_RETENTION_DAYS, src/db/log-partitions.ts) drops whole months instead of deleting rows, and
-- the append-only audit log never needs a DELETE. Partitions are named <table>_YYYYMM and created ahead by
-- lethe_ensure_month_partitions (here, at every start and daily in every process). The primary keys gain
-- `at` (a partitioned table's key must hold the partition key); `seq` stays unique through its sequence.

CREATE FUNCTION lethe_ensure_month_partitions(parent text, from_time timestamptz, months_ahead integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month date := date_trunc('month', from_time AT TIME ZONE 'UTC')::date;
  last_month date := (date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => months_ahead))::date;
  partition text;
BEGIN
  -- Several processes keep the partitions: one at a time, each sees what the previous one created.
  PERFORM pg_advisory_xact_lock(hashtextextended('lethe-log-partitions', 0));
  WHILE month <= last_month LOOP
    partition := format('%s_%s', parent, to_char(month, 'YYYYMM'));
    IF to_regclass(partition) IS NULL THEN
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', partition, parent,
        month::timestamp AT TIME ZONE 'UTC', (month + interval '1 month')::timestamp AT TIME ZONE 'UTC');
      IF parent = 'audit_log' THEN
        -- Row triggers are cloned onto partitions; a TRUNCATE of the partition itself needs its own.
        EXECUTE format('CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON %I
                        FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change()', partition);
      END IF;
    END IF;
    month := (month + interval '1 month')::date;
  END LOOP;
END;
$$;

-- Drops the month partitions of `parent` that end at or before `cutoff`; answers their names.
CREATE FUNCTION lethe_drop_month_partitions(parent text, cutoff timestamptz)
RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
  partition text;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('lethe-log-partitions', 0));
  FOR partition IN
    SELECT child.relname FROM pg_inherits
      JOIN pg_class child ON child.oid = pg_inherits.inhrelid
     WHERE pg_inherits.inhparent = parent::regclass
       AND child.relname ~ ('^' || parent || '_\d{6}$')
       AND (to_date(right(child.relname, 6), 'YYYYMM') + interval '1 month')::timestamp AT TIME ZONE 'UTC' <= cutoff
     ORDER BY child.relname
  LOOP
    EXECUTE format('DROP TABLE %I', partition);
    RETURN NEXT partition;
  END LOOP;
END;
$$;

ALTER TABLE audit_log RENAME TO audit_log_unpartitioned;
DROP INDEX audit_log_datastore_idx, audit_log_action_idx, audit_log_entity_ids_idx, audit_log_actor_idx;
CREATE TABLE audit_log (
  seq bigint NOT NULL DEFAULT nextval('audit_log_seq_seq'),
  at timestamptz NOT NULL DEFAULT now(),
  action text NOT NULL,
  datastore text,
  entity_ids text[] NOT NULL DEFAULT '{}',
  actor text NOT NULL,
  request_id text,
  details jsonb NOT NULL DEFAULT '{}',
  -- The SAR recipient, sealed under the datastore's value key (a personal value like any other).
  recipient_sealed bytea,
  PRIMARY KEY (seq, at)
) PARTITION BY RANGE (at);
ALTER SEQUENCE audit_log_seq_seq OWNED BY audit_log.seq;
SELECT lethe_ensure_month_partitions('audit_log', coalesce((SELECT min(at) FROM audit_log_unpartitioned), now()), 3);
INSERT INTO audit_log SELECT * FROM audit_log_unpartitioned;
DROP TABLE audit_log_unpartitioned;
CREATE INDEX audit_log_datastore_idx ON audit_log (datastore, seq);
CREATE INDEX audit_log_action_idx ON audit_log (action, seq);
CREATE INDEX audit_log_entity_ids_idx ON audit_log USING gin (entity_ids);
CREATE INDEX audit_log_actor_idx ON audit_log (actor, action, seq);
-- The audit log filtered by time (the console's and GET /v1/audit-log's from/to).
CREATE INDEX audit_log_at_idx ON audit_log (at);
CREATE TRIGGER audit_log_no_update_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

ALTER TABLE privacy_request_log RENAME TO privacy_request_log_unpartitioned;
DROP INDEX privacy_request_log_request_idx;
CREATE TABLE privacy_request_log (
  seq bigint NOT NULL DEFAULT nextval('privacy_request_log_seq_seq'),
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  kind text NOT NULL CHECK (kind IN ('transition', 'webhook', 'rules', 'note')),
  from_status text,
  to_status text,
  webhook_key text,
  timing text,
  direction text,
  target_host text,
  http_status integer,
  duration_ms integer,
  attempt integer,
  error text,
  message text,
  details jsonb,
  PRIMARY KEY (seq, at)
) PARTITION BY RANGE (at);
ALTER SEQUENCE privacy_request_log_seq_seq OWNED BY privacy_request_log.seq;
SELECT lethe_ensure_month_partitions(
  'privacy_request_log', coalesce((SELECT min(at) FROM privacy_request_log_unpartitioned), now()), 3);
INSERT INTO privacy_request_log SELECT * FROM privacy_request_log_unpartitioned;
DROP TABLE privacy_request_log_unpartitioned;
CREATE INDEX privacy_request_log_request_idx ON privacy_request_log (privacy_request_id, seq);
