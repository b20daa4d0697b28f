-- The outbox's message kinds are declared once, in code (MESSAGE_KINDS in src/outbox/repository.ts), and every
-- insert is checked against that list there. Four migrations (018, 019, 020, 022) re-created a CHECK listing the
-- kinds, and the ones written side by side refused each other's; the table keeps only a check of the shape.
ALTER TABLE outbox_messages DROP CONSTRAINT outbox_messages_kind_check;
ALTER TABLE outbox_messages ADD CONSTRAINT outbox_messages_kind_shape CHECK (kind ~ '^[a-z][a-z_]{0,39}$');
