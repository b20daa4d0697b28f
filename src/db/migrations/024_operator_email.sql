-- An operator's own work address, where their overdue-task reminders go (src/tasks/reminders.ts) when their
-- username is not itself an address. Optional; the service checks its form (src/validation/email.ts), the
-- table bounds its length as a last guard.
ALTER TABLE operators ADD COLUMN email text CHECK (char_length(email) <= 254);
