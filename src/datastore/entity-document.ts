// The entity as one document (migration 029, docs/area-b.md): each entity row carries its attributes (each
// value sealed on its own, base64), its parents and its files, so that reading an entity is one
// primary-key fetch. This file knows the document's shape, how a row opens into a SubjectEntity, and the
// SQL that builds the same document from the earlier layout (one row per attribute, references and files
// in their tables) for the entities not moved yet (entity-layout.ts moves them).
import type { Keyring } from '../crypto/keyring.ts';
import { openAttributeValue, openFileName } from './sealing.ts';

/** A sealed value in a document: the box's bytes in base64. */
export type SealedText = string;

/** `{name: sealed value | null}`; a deleted attribute has no key. */
export type AttributesDocument = Record<string, SealedText | null>;
/** [parent id, parent table], oldest parent first. */
export type ParentsDocument = [string, string][];
/** [file id, attribute name, sealed file name, content type, size] */
export type FilesDocument = [string, string, SealedText, string, number][];

export interface SubjectEntity {
  id: string;
  datastore: string;
  name: string;
  parents: { parentId: string; parentName: string }[];
  attributes: { name: string; value: string | null }[];
  files: { name: string; fileName: string; contentType: string; size: number }[];
  createdAt: string;
}

/** An entity row as the reads select it; `attributes` is NULL while the entity is in the earlier layout. */
export interface EntityRow {
  id: string;
  name: string;
  created_at: Date;
  attributes: AttributesDocument | null;
  parents: ParentsDocument | null;
  files: FilesDocument | null;
}

export const sealedText = (sealed: Uint8Array): SealedText => Buffer.from(sealed).toString('base64');

const byName = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * The entity of a row, its values opened. Attributes and files come back by name in code-point order (the
 * order PostgreSQL's C collation gave them when the read sorted them in SQL).
 */
export function openEntity(keyring: Keyring, datastore: string, row: EntityRow): SubjectEntity {
  const attributes = row.attributes ?? {};
  return {
    id: row.id,
    datastore,
    name: row.name,
    parents: (row.parents ?? []).map(([parentId, parentName]) => ({ parentId, parentName })),
    attributes: Object.keys(attributes)
      .sort(byName)
      .map((name) => {
        const sealed = attributes[name];
        return {
          name,
          value:
            sealed === null || sealed === undefined
              ? null
              : openAttributeValue(keyring, datastore, row.id, name, Buffer.from(sealed, 'base64')),
        };
      }),
    files: (row.files ?? [])
      .toSorted((left, right) => byName(left[1], right[1]))
      .map(([fileId, name, sealedName, contentType, size]) => ({
        name,
        fileName: openFileName(keyring, datastore, fileId, Buffer.from(sealedName, 'base64')),
        contentType,
        size: Number(size),
      })),
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** base64 of a bytea without the line breaks PostgreSQL's encoder puts every 76 characters. */
const base64 = (column: string) => `translate(encode(${column}, 'base64'), E'\\n', '')`;

/** The attributes document of the entity `alias` built from its rows of the earlier layout. */
export const earlierAttributes = (alias: string) => `
  (SELECT coalesce(jsonb_object_agg(a.name, ${base64('a.value_sealed')}), '{}')
     FROM entity_attributes a WHERE a.datastore = ${alias}.datastore AND a.entity_id = ${alias}.id)`;

/** The parents document of the entity `alias` from entity_references, oldest parent first. */
export const earlierParents = (alias: string) => `
  (SELECT coalesce(jsonb_agg(jsonb_build_array(r.parent_id, p.name) ORDER BY p.created_at, p.id), '[]')
     FROM entity_references r JOIN entities p ON p.datastore = r.datastore AND p.id = r.parent_id
    WHERE r.datastore = ${alias}.datastore AND r.child_id = ${alias}.id)`;

/** The files document of the entity `alias` from its bound rows of entity_files. */
export const earlierFiles = (alias: string) => `
  (SELECT coalesce(jsonb_agg(jsonb_build_array(f.id, f.attribute_name, ${base64('f.file_name_sealed')}, f.content_type, f.size)), '[]')
     FROM entity_files f WHERE f.complete AND f.datastore = ${alias}.datastore AND f.entity_id = ${alias}.id)`;

/**
 * The SET list of an UPDATE of entities `alias` that moves a row of the earlier layout into the document
 * on the way (each earlier-layout subquery runs only for such a row: COALESCE and CASE evaluate lazily),
 * with `attributes`/`files` given as expressions over the row's current document. Every write of an
 * entity goes through it, under the row's lock, so no write ever sees or leaves half of each layout.
 */
export function documentSet(
  alias: string,
  change: { attributes?: (current: string) => string; files?: (current: string) => string } = {},
): string {
  const attributes = `coalesce(${alias}.attributes, ${earlierAttributes(alias)})`;
  const files = `CASE WHEN ${alias}.attributes IS NULL THEN ${earlierFiles(alias)} ELSE ${alias}.files END`;
  return `attributes = ${change.attributes ? change.attributes(attributes) : attributes},
          parents = CASE WHEN ${alias}.attributes IS NULL THEN ${earlierParents(alias)} ELSE ${alias}.parents END,
          files = ${change.files ? change.files(files) : files}`;
}
