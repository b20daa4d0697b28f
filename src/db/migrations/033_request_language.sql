-- The language a request's subject reads (src/i18n/): chosen on the privacy center when the request is
-- made, and every later message for the request is written in it, whoever triggers it. NULL (a request
-- made through the API, or before this migration) means LETHE_DEFAULT_LANGUAGE at the time of writing.
-- The code checks the value against the catalogues; the table keeps only its shape.
ALTER TABLE privacy_requests ADD COLUMN language text CHECK (language ~ '^[a-z]{2,3}$');

-- The privacy center's title in other languages ({language: {title: text}}); each action's translations
-- live inside `actions`. Checked in code against the catalogues (src/i18n/operator-texts.ts).
ALTER TABLE privacy_center_settings ADD COLUMN translations jsonb NOT NULL DEFAULT '{}';
