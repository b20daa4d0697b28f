-- The outbox's message kinds, all of them in one constraint. Migrations 018, 019 and 020 were written
-- side by side and each redefined this constraint with the kinds it added, so the last one to run left
-- out the others' ('extended', 'appeal_upheld', 'respondent_invite', 'task_overdue', 'subject_note').
-- test/outbox/message-kinds.test.ts holds the constraint to MESSAGE_KINDS.
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_kind_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_kind_check
  CHECK (kind IN ('verification_code', 'received', 'denied', 'completed', 'canceled', 'extended',
                  'appeal_upheld', 'respondent_invite', 'task_overdue', 'agent_confirmation', 'subject_note'));
