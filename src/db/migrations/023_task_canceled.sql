-- A task closed because its privacy request ended without being answered (canceled: docs/human-steps.md):
-- it is not open, so it is neither overdue, nor stuck, nor reminded of, and it cannot be completed; nor was
-- it done or skipped by anyone. done_at and done_by say when and by whom its request was canceled.
ALTER TABLE tasks DROP CONSTRAINT tasks_status_check;
ALTER TABLE tasks ADD CONSTRAINT tasks_status_check CHECK (status IN ('open', 'done', 'skipped', 'canceled'));
