-- Human steps (docs/human-steps.md): systems without an API that a person answers for, and the tasks a
-- privacy request gets for them. A task snapshots its system (name, fields, instructions) when it is
-- created, so that editing or deleting the system later changes no task already given out. The data a
-- task is completed with is personal: it is stored sealed (src/tasks/task-data.ts), never in clear.
CREATE TABLE manual_systems (
  key text PRIMARY KEY,
  name text NOT NULL,
  actions text[] NOT NULL,
  fields jsonb NOT NULL,
  instructions text NOT NULL DEFAULT '',
  assignee text,
  respondent_email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tasks (
  id text PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  system_key text NOT NULL,
  system_name text NOT NULL,
  action text NOT NULL CHECK (action IN ('access', 'erasure')),
  fields jsonb NOT NULL,
  instructions text NOT NULL,
  respondent_email text,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'skipped')),
  assignee text,
  due_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  done_by text,
  skip_reason text,
  data_sealed bytea,
  -- the last day an overdue reminder went out for this task (one a day at most)
  reminded_on date,
  -- a rerun of the rules step (after a crash) finds the tasks it made and makes no second one
  UNIQUE (privacy_request_id, system_key, action)
);
CREATE INDEX tasks_open_idx ON tasks (due_at) WHERE status = 'open';
CREATE INDEX tasks_request_idx ON tasks (privacy_request_id);

-- Links mailed to a respondent outside the company (POST /v1/task/{id}/invite): only the SHA-256 of the
-- token is kept; a link works once (used_at is set in the transaction that completes the task) and
-- until expires_at.
CREATE TABLE task_respondent_links (
  token_hash bytea PRIMARY KEY,
  task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX task_respondent_links_task_idx ON task_respondent_links (task_id);

-- The invite to a respondent, the reminder of an overdue task and a note to the subject go through the
-- outbox too.
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_kind_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_kind_check
  CHECK (kind IN ('verification_code', 'received', 'denied', 'completed', 'canceled', 'respondent_invite',
                  'task_overdue', 'subject_note'));

-- Notes on a request: internal, or mailed to the data subject. The text may name the subject: sealed.
CREATE TABLE request_notes (
  id text PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  visibility text NOT NULL CHECK (visibility IN ('internal', 'subject')),
  text_sealed bytea NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX request_notes_request_idx ON request_notes (privacy_request_id, created_at);

-- Attachments of a request, stored as sealed 256 KiB chunks like the subject store's files; a row is
-- complete once every chunk is in. include_in_package puts it in the subject's ZIP.
CREATE TABLE request_attachments (
  id text PRIMARY KEY,
  privacy_request_id text NOT NULL REFERENCES privacy_requests (id) ON DELETE CASCADE,
  file_name_sealed bytea,
  content_type text NOT NULL,
  size bigint NOT NULL DEFAULT 0,
  chunk_count integer NOT NULL DEFAULT 0,
  include_in_package boolean NOT NULL DEFAULT false,
  complete boolean NOT NULL DEFAULT false,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX request_attachments_request_idx ON request_attachments (privacy_request_id, created_at);
CREATE TABLE request_attachment_chunks (
  attachment_id text NOT NULL REFERENCES request_attachments (id) ON DELETE CASCADE,
  chunk_no integer NOT NULL,
  data_sealed bytea NOT NULL,
  PRIMARY KEY (attachment_id, chunk_no)
);
