-- The action types of rules are registered once, in code (src/actions/registry.ts), and a rule's type is
-- checked against that registry when the rule is written. Migrations 002 and 020 listed the types in a CHECK,
-- so each new type needed a migration of its own; the table keeps only a check of the shape.
ALTER TABLE rules DROP CONSTRAINT rules_action_type_check;
ALTER TABLE rules ADD CONSTRAINT rules_action_type_shape CHECK (action_type ~ '^[a-z][a-z_]{0,39}$');
