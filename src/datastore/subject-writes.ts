// Writes to the subject data of Area B: inserting entities with their references and sealed attributes,
// setting and deleting attribute values and files, forgetting and deleting entities. Like
// subject-store.ts (the reads), every function takes a Queryable so that the caller decides the
// transaction; it never decides an HTTP status and never writes the audit log.
// An entity's values live in its row's document (entity-document.ts); entity_attributes keeps one row per
// attribute with its blind index. A write changes the document first, in one UPDATE that takes the row's
// lock and computes the new document from the current one (`attributes || change`), so that concurrent
// writes to one entity wait for each other and none is lost; then it changes the blind-index rows.
import { setImmediate } from 'node:timers/promises';
import type { Keyring } from '../crypto/keyring.ts';
import { byteaArray } from '../db/binary-array.ts';
import type { Queryable } from '../db/database.ts';
import { documentSet, sealedText } from './entity-document.ts';
import { changeDocuments, deleteEntityRows, documentChange } from './entity-rows.ts';
import { blindIndex, sealAttributeValue } from './sealing.ts';
import { entityIds, isEntityId, subtreeOf, WANTED_IDS } from './subject-store.ts';

/** Rows per statement when setting values: large erasures go in a few statements, not one per value. */
const SET_VALUES_BATCH = 500;

/** Values sealed in one go before the event loop gets a turn (about half a millisecond of CPU). */
const SEAL_SLICE = 100;

/**
 * The sealed values (base64, null for a null value) and the blind indexes of attribute values, a slice at
 * a time: a create of 100 entities x 5 attributes seals 500 values, several milliseconds of CPU that would
 * otherwise hold every other request of the process (bench/README.md, event-loop delay under create).
 * The indexes go to PostgreSQL as a bytea[] parameter in binary (src/db/binary-array.ts).
 */
async function sealValues(
  keyring: Keyring,
  datastore: string,
  values: readonly { entityId: string; name: string; value: string | null }[],
): Promise<{ sealed: (string | null)[]; indexes: (Buffer | null)[] }> {
  const sealed: (string | null)[] = [];
  const indexes: (Buffer | null)[] = [];
  for (let start = 0; start < values.length; start += SEAL_SLICE) {
    if (start > 0) await setImmediate();
    for (const { entityId, name, value } of values.slice(start, start + SEAL_SLICE)) {
      sealed.push(
        value === null ? null : sealedText(sealAttributeValue(keyring, datastore, entityId, name, value)),
      );
      indexes.push(value === null ? null : blindIndex(keyring, datastore, value));
    }
  }
  return { sealed, indexes };
}

/** The blind-index rows of attributes set: NULL for a null value; no value is kept here any more. */
const UPSERT_INDEX_ROWS = `
  INSERT INTO entity_attributes (entity_id, name, datastore, blind_index)
  SELECT entity_id, name, $1, blind_index FROM unnest($2::uuid[], $3::text[], $4::bytea[]) AS t(entity_id, name, blind_index)
  ON CONFLICT (datastore, entity_id, name) DO UPDATE SET blind_index = EXCLUDED.blind_index, value_sealed = NULL`;

/** The change `$3` ({entity id: {name: sealed | null}}) merged into each entity's attributes. */
const SET_VALUES = documentChange(
  documentSet('e', { attributes: (current) => `${current} || ($3::jsonb -> e.id::text)` }),
);

/**
 * Sets (or creates) attribute values of entities of the datastore; null keeps the attribute with a null
 * value. Answers how many of the changes named an entity of the datastore (a change repeated for one
 * attribute counts each time; the last one wins).
 */
export async function setAttributeValues(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  changes: { entityId: string; name: string; value: string | null }[],
): Promise<number> {
  const valid = changes
    .filter((change) => isEntityId(change.entityId))
    .map((change) => ({ ...change, entityId: change.entityId.toLowerCase() }));
  const lastChange = new Map(valid.map((change) => [`${change.entityId}:${change.name}`, change]));
  const rows = [...lastChange.values()];
  const existing = new Set<string>();
  for (let start = 0; start < rows.length; start += SET_VALUES_BATCH) {
    const batch = rows.slice(start, start + SET_VALUES_BATCH);
    const { sealed, indexes } = await sealValues(keyring, datastore, batch);
    const change: Record<string, Record<string, string | null>> = {};
    batch.forEach(({ entityId, name }, index) => {
      (change[entityId] ??= {})[name] = sealed[index] ?? null;
    });
    const changed = await changeDocuments(
      db,
      datastore,
      Object.keys(change),
      SET_VALUES,
      JSON.stringify(change),
    );
    const kept = batch.flatMap((row, index) => (changed.has(row.entityId) ? [index] : []));
    if (kept.length > 0) {
      await db.query(UPSERT_INDEX_ROWS, [
        datastore,
        kept.map((index) => (batch[index] as { entityId: string }).entityId),
        kept.map((index) => (batch[index] as { name: string }).name),
        byteaArray(kept.map((index) => indexes[index] ?? null)),
      ]);
    }
    for (const id of changed) existing.add(id);
  }
  return valid.filter((change) => existing.has(change.entityId)).length;
}

/** Each entity's names (`$3`, {entity id: [names]}) taken out of its document's attributes and files. */
const namesOf = `($3::jsonb -> e.id::text)`;
const withoutFiles = (current: string) => `
  (SELECT coalesce(jsonb_agg(f.entry), '[]') FROM jsonb_array_elements(${current}) AS f(entry)
    WHERE NOT ${namesOf} ? (f.entry ->> 1))`;
const DELETE_NAMES = documentChange(
  documentSet('e', {
    attributes: (current) => `${current} - ARRAY(SELECT jsonb_array_elements_text(${namesOf}))`,
    files: withoutFiles,
  }),
);
const DELETE_FILE_NAMES = documentChange(documentSet('e', { files: withoutFiles }));

/**
 * DELETE of the rows of `table` named by (entity, attribute name) pairs (`$2`, `$3`) of the datastore `$1`:
 * one probe per pair in every plan (a DELETE cannot drive its target through a LATERAL probe, and its
 * generic plan over a join read the whole datastore's rows: test/datastore/generic-plans.test.ts), then
 * the rows found deleted by their physical address. The address cannot move in between: these rows
 * change only under their entity's row lock, which the document's UPDATE before took.
 */
const deletePairs = (table: string, pair: string) => `
  DELETE FROM ${table} WHERE ctid = ANY(ARRAY(
    SELECT found.ctid FROM unnest($2::uuid[], $3::text[]) AS t(entity_id, name)
     CROSS JOIN LATERAL (SELECT ctid FROM ${table} WHERE datastore = $1 AND ${pair} OFFSET 0) AS found))`;
const DELETE_INDEX_ROWS = deletePairs('entity_attributes', 'entity_id = t.entity_id AND name = t.name');
const DELETE_FILE_ROWS = deletePairs(
  'entity_files',
  'complete AND entity_id = t.entity_id AND attribute_name = t.name',
);

/** The (entity, name) pairs grouped by entity: {entity id: [names]}. */
function namesByEntity(items: readonly { entityId: string; name: string }[]) {
  const names: Record<string, string[]> = {};
  for (const { entityId, name } of items) (names[entityId] ??= []).push(name);
  return names;
}

/** The pairs whose entity id is well-formed, with the id in lower case. */
function validPairs(items: readonly { entityId: string; name: string }[]) {
  return items
    .filter((item) => isEntityId(item.entityId))
    .map((item) => ({ entityId: item.entityId.toLowerCase(), name: item.name }));
}

/** Removes attributes (value and file attributes of that name) from entities of the datastore. */
export async function deleteAttributes(
  db: Queryable,
  datastore: string,
  items: { entityId: string; name: string }[],
): Promise<number> {
  const valid = validPairs(items);
  if (valid.length === 0) return 0;
  const names = namesByEntity(valid);
  await changeDocuments(db, datastore, Object.keys(names), DELETE_NAMES, JSON.stringify(names));
  const pairs = [datastore, valid.map((item) => item.entityId), valid.map((item) => item.name)];
  const values = await db.query(DELETE_INDEX_ROWS, pairs);
  const files = await db.query(DELETE_FILE_ROWS, pairs);
  return values.rowCount + files.rowCount;
}

/** Removes only the file attributes of these names (value attributes of the same name stay). */
export async function deleteFileAttributes(
  db: Queryable,
  datastore: string,
  items: { entityId: string; name: string }[],
): Promise<number> {
  const valid = validPairs(items);
  if (valid.length === 0) return 0;
  const names = namesByEntity(valid);
  await changeDocuments(db, datastore, Object.keys(names), DELETE_FILE_NAMES, JSON.stringify(names));
  const { rowCount } = await db.query(DELETE_FILE_ROWS, [
    datastore,
    valid.map((item) => item.entityId),
    valid.map((item) => item.name),
  ]);
  return rowCount;
}

/** Erases the roots, every descendant, their attributes, files and file chunks. Run it inside a transaction. */
export async function forgetEntities(
  db: Queryable,
  datastore: string,
  rootIds: string[],
): Promise<{ entities: number; attributes: number; files: number }> {
  const ids = (await subtreeOf(db, datastore, rootIds)).map((entity) => entity.id);
  if (ids.length === 0) return { entities: 0, attributes: 0, files: 0 };
  const { rows } = await db.query<{ attributes: number; files: number }>(
    `SELECT (SELECT count(*) FROM ${WANTED_IDS} CROSS JOIN LATERAL (
               SELECT 1 FROM entity_attributes WHERE datastore = $1 AND entity_id = wanted.id OFFSET 0) AS a)::int AS attributes,
            (SELECT count(*) FROM ${WANTED_IDS} CROSS JOIN LATERAL (
               SELECT 1 FROM entity_files WHERE complete AND datastore = $1 AND entity_id = wanted.id OFFSET 0) AS f)::int AS files`,
    [datastore, ids],
  );
  const removed = await deleteEntityRows(db, datastore, ids);
  const counts = rows[0] ?? { attributes: 0, files: 0 };
  return { entities: removed.size, attributes: Number(counts.attributes), files: Number(counts.files) };
}

/**
 * The children of the entities `$3` (outside them) lose them from their parents. A child still in the
 * earlier layout is rewritten unchanged: its row's lock is what keeps the background move
 * (entity-layout.ts) from building its parents from references this transaction is deleting.
 */
const DROP_DELETED_PARENTS = documentChange(`
  parents = CASE WHEN e.attributes IS NULL THEN e.parents ELSE (
    SELECT coalesce(jsonb_agg(p.parent ORDER BY p.position), '[]')
      FROM jsonb_array_elements(e.parents) WITH ORDINALITY AS p(parent, position)
     WHERE NOT (p.parent ->> 0)::uuid = ANY($3::uuid[])) END`);

/** The children of the entities `$2` of the datastore `$1`, one probe of the references per parent. */
const CHILDREN = `
  SELECT DISTINCT r.child_id AS id FROM ${WANTED_IDS}
   CROSS JOIN LATERAL (
     SELECT child_id FROM entity_references WHERE datastore = $1 AND parent_id = wanted.id OFFSET 0
   ) AS r`;

/** Deletes the entities themselves (with their attributes and files; children lose the reference). */
export async function deleteEntities(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const wanted = entityIds(ids);
  if (wanted.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(CHILDREN, [datastore, wanted]);
  const children = rows.map((row) => row.id).filter((id) => !wanted.includes(id));
  await changeDocuments(db, datastore, children, DROP_DELETED_PARENTS, `{${wanted.join(',')}}`);
  return deleteEntityRows(db, datastore, wanted);
}

export interface NewEntity {
  id: string;
  name: string;
  /** The parents, oldest first (as reads answer them). */
  parents: { parentId: string; parentName: string }[];
  attributes: { name: string; value: string | null }[];
}

/**
 * Inserts entities with their documents, references and blind-index rows; the caller checked ids and
 * parents. Three statements whatever the batch size (entities, references, blind indexes, each one
 * multi-row INSERT): a create of 100 entities x 5 attributes was 600 round trips.
 */
export async function insertEntities(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  entities: readonly NewEntity[],
): Promise<void> {
  if (entities.length === 0) return;
  const attributes = entities.flatMap((entity) =>
    entity.attributes.map((attribute) => ({ entityId: entity.id, ...attribute })),
  );
  // Sealed before the first statement, so that no row the transaction writes is locked meanwhile.
  const { sealed, indexes } = await sealValues(keyring, datastore, attributes);
  let next = 0;
  const rows = entities.map((entity) => {
    const document: Record<string, string | null> = {};
    for (const attribute of entity.attributes) document[attribute.name] = sealed[next++] ?? null;
    return {
      id: entity.id,
      name: entity.name,
      attributes: document,
      parents: entity.parents.map((parent) => [parent.parentId, parent.parentName]),
    };
  });
  await db.query(
    `INSERT INTO entities (id, datastore, name, attributes, parents, files)
     SELECT t.id, $1, t.name, t.attributes, t.parents, '[]'
       FROM jsonb_to_recordset($2::jsonb) AS t(id uuid, name text, attributes jsonb, parents jsonb)`,
    [datastore, JSON.stringify(rows)],
  );
  const references = entities.flatMap((entity) =>
    entity.parents.map((parent) => ({ childId: entity.id, parentId: parent.parentId })),
  );
  if (references.length > 0) {
    await db.query(
      `INSERT INTO entity_references (datastore, child_id, parent_id)
       SELECT $1, child_id, parent_id FROM unnest($2::uuid[], $3::uuid[]) AS t(child_id, parent_id)
       ON CONFLICT DO NOTHING`,
      [
        datastore,
        references.map((reference) => reference.childId),
        references.map((reference) => reference.parentId),
      ],
    );
  }
  if (attributes.length > 0) {
    await db.query(
      `INSERT INTO entity_attributes (entity_id, name, datastore, blind_index)
       SELECT entity_id, name, $1, blind_index
         FROM unnest($2::uuid[], $3::text[], $4::bytea[]) AS t(entity_id, name, blind_index)`,
      [
        datastore,
        attributes.map((attribute) => attribute.entityId),
        attributes.map((attribute) => attribute.name),
        byteaArray(indexes),
      ],
    );
  }
}
