-- A manual system's instructions in other languages ({language: {instructions: text}}), checked in code
-- against the catalogues (src/i18n/operator-texts.ts). A task keeps its own copy, like its instructions, so
-- the respondent's page and the mails of a task read them as they were when the task was given out.
ALTER TABLE manual_systems ADD COLUMN translations jsonb NOT NULL DEFAULT '{}';
ALTER TABLE tasks ADD COLUMN translations jsonb NOT NULL DEFAULT '{}';
