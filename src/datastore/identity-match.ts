// A privacy request's match over one datastore, by identity kind (docs/decisions.md#whom-lethe-acts-for):
// an entity matches when one of its identity attributes of kind K (declared, else the default) equals
// the request's identity of kind K, through the blind index; its descendants belong to it. An email held
// in a `notes` attribute is no match: whoever can type someone's address must not get their data nor
// erase it. get-by-identity of Area B (any attribute) stays in subject-store.ts.
// Values cross this boundary decrypted; it never logs one nor puts one in an error message.
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { identityAttributesOf, type IdentityAttribute, type TypedIdentity } from './identity-attributes.ts';
import { identityAttributesRepository } from './identity-attributes-repository.ts';
import { blindIndex } from './sealing.ts';
import { loadSubtrees, MAX_IDENTITY_MATCHES, type SubjectEntity, tooManyMatches } from './subject-store.ts';

/**
 * The (entity, value) hits of the datastore `$1` for the blind indexes `$2` of kinds `$3`, through the
 * attributes `$4`/`$5`/`$6` (kind, attribute, table; table '' is any table), at most `$7`. One probe of
 * the blind-index index per wanted value, restricted to the attribute names of its kind, then one probe
 * of the entity by id for its table, in every plan (OFFSET 0 keeps each probe a nested loop: see
 * WANTED_IDS in subject-store.ts and test/datastore/generic-plans.test.ts).
 */
const KIND_SCOPED_HITS = `
  SELECT h.entity_id FROM (
    SELECT a.entity_id, e.created_at
      FROM (SELECT DISTINCT * FROM unnest($2::bytea[], $3::text[])) AS wanted(blind_index, kind)
     CROSS JOIN LATERAL (
       SELECT entity_id, name FROM entity_attributes
        WHERE datastore = $1 AND blind_index = wanted.blind_index
          AND name = ANY (SELECT allowed.attribute FROM unnest($4::text[], $5::text[]) AS allowed(kind, attribute)
                           WHERE allowed.kind = wanted.kind)
        OFFSET 0
     ) AS a
     CROSS JOIN LATERAL (
       SELECT name, created_at FROM entities WHERE datastore = $1 AND id = a.entity_id OFFSET 0
     ) AS e
     WHERE EXISTS (
       SELECT 1 FROM unnest($4::text[], $5::text[], $6::text[]) AS allowed(kind, attribute, table_name)
        WHERE allowed.kind = wanted.kind AND allowed.attribute = a.name AND allowed.table_name IN ('', e.name)
     )
     LIMIT $7
  ) AS h
  ORDER BY h.created_at, h.entity_id`;

/** The ids of the entities an identity matches through an attribute of its own kind, oldest first. */
export async function matchIdentitiesByKind(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  identities: readonly TypedIdentity[],
  attributes: readonly IdentityAttribute[],
): Promise<string[]> {
  const kinds = new Set(attributes.map((attribute) => attribute.kind));
  const wanted = identities.filter((identity) => kinds.has(identity.kind) && identity.value.trim() !== '');
  if (wanted.length === 0) return [];
  const { rows } = await db.query<{ entity_id: string }>(KIND_SCOPED_HITS, [
    datastore,
    wanted.map((identity) => blindIndex(keyring, datastore, identity.value)),
    wanted.map((identity) => identity.kind),
    attributes.map((attribute) => attribute.kind),
    attributes.map((attribute) => attribute.attribute),
    attributes.map((attribute) => attribute.table),
    MAX_IDENTITY_MATCHES + 1,
  ]);
  if (rows.length > MAX_IDENTITY_MATCHES) throw tooManyMatches();
  return [...new Set(rows.map((row) => row.entity_id))];
}

/** The matched trees of one datastore: roots found by kind (its declaration, else the default), then descendants. */
export async function matchedSubtrees(
  db: Queryable,
  services: { keyring: Keyring },
  datastore: string,
  identities: readonly TypedIdentity[],
): Promise<SubjectEntity[]> {
  const declared = await identityAttributesRepository.find(db, datastore);
  const roots = await matchIdentitiesByKind(
    db,
    services.keyring,
    datastore,
    identities,
    identityAttributesOf(declared?.declaration),
  );
  return loadSubtrees(db, services.keyring, datastore, roots);
}
