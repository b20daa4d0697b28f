-- Which attributes of a datastore hold which identity kind (docs/decisions.md#whom-lethe-acts-for): a
-- privacy request matches an entity only through an attribute of the kind of the identity value. One row
-- per datastore that declared ({kind: ["table.attribute", ...]}); no row is the default (`email`,
-- `phone_number`/`phone` in any table). Written only by src/datastore/identity-attributes-repository.ts.
CREATE TABLE datastore_identity_attributes (
  datastore text PRIMARY KEY REFERENCES datastores (name) ON DELETE CASCADE,
  declaration jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
