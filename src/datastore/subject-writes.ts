// Writes to the subject data of Area B: inserting entities with their references and sealed attributes,
// setting and deleting attribute values and files, forgetting and deleting entities. Like
// subject-store.ts (the reads), every function takes a Queryable so that the caller decides the
// transaction; it never decides an HTTP status and never writes the audit log.
import { setImmediate } from 'node:timers/promises';
import type { Keyring } from '../crypto/keyring.ts';
import { byteaArray } from '../db/binary-array.ts';
import type { Queryable } from '../db/database.ts';
import { blindIndex, sealAttributeValue } from './sealing.ts';
import { entityIds, entityProbe, isEntityId, subtreeOf, WANTED_IDS } from './subject-store.ts';

/** Rows per statement when setting values: large erasures go in a few statements, not one per value. */
const SET_VALUES_BATCH = 500;

/** Values sealed in one go before the event loop gets a turn (about half a millisecond of CPU). */
const SEAL_SLICE = 100;

/**
 * The sealed values and blind indexes of attribute values (null for a null value), a slice at a time:
 * a create of 100 entities x 5 attributes seals 500 values, several milliseconds of CPU that would
 * otherwise hold every other request of the process (bench/README.md, event-loop delay under create).
 * Answered as bytea[] parameters in binary (src/db/binary-array.ts).
 */
async function sealValues(
  keyring: Keyring,
  datastore: string,
  values: readonly { entityId: string; name: string; value: string | null }[],
): Promise<{ sealed: Buffer; indexes: Buffer }> {
  const sealed: (Buffer | null)[] = [];
  const indexes: (Buffer | null)[] = [];
  for (let start = 0; start < values.length; start += SEAL_SLICE) {
    if (start > 0) await setImmediate();
    for (const { entityId, name, value } of values.slice(start, start + SEAL_SLICE)) {
      sealed.push(value === null ? null : sealAttributeValue(keyring, datastore, entityId, name, value));
      indexes.push(value === null ? null : blindIndex(keyring, datastore, value));
    }
  }
  return { sealed: byteaArray(sealed), indexes: byteaArray(indexes) };
}

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
    const { rows: written } = await db.query<{ entity_id: string }>(
      `INSERT INTO entity_attributes (entity_id, name, datastore, value_sealed, blind_index)
       SELECT e.id, t.name, e.datastore, t.value_sealed, t.blind_index
         FROM unnest($2::uuid[], $3::text[], $4::bytea[], $5::bytea[]) AS t(entity_id, name, value_sealed, blind_index)
         ${entityProbe('t.entity_id')}
       ON CONFLICT (datastore, entity_id, name) DO UPDATE
         SET value_sealed = EXCLUDED.value_sealed, blind_index = EXCLUDED.blind_index
       RETURNING entity_id`,
      [
        datastore,
        batch.map((change) => change.entityId),
        batch.map((change) => change.name),
        sealed,
        indexes,
      ],
    );
    for (const row of written) existing.add(row.entity_id);
  }
  return valid.filter((change) => existing.has(change.entityId)).length;
}

/** Removes attributes (value and file attributes of that name) from entities of the datastore. */
export async function deleteAttributes(
  db: Queryable,
  datastore: string,
  items: { entityId: string; name: string }[],
): Promise<number> {
  const valid = items.filter((item) => isEntityId(item.entityId));
  if (valid.length === 0) return 0;
  const ids = valid.map((item) => item.entityId.toLowerCase());
  const names = valid.map((item) => item.name);
  const values = await db.query(
    `DELETE FROM entity_attributes a USING unnest($2::uuid[], $3::text[]) AS t(entity_id, name)
      WHERE a.datastore = $1 AND a.entity_id = t.entity_id AND a.name = t.name`,
    [datastore, ids, names],
  );
  const files = await db.query(
    `DELETE FROM entity_files f USING unnest($2::uuid[], $3::text[]) AS t(entity_id, name)
      WHERE f.datastore = $1 AND f.complete AND f.entity_id = t.entity_id AND f.attribute_name = t.name`,
    [datastore, ids, names],
  );
  return values.rowCount + files.rowCount;
}

/** Removes only the file attributes of these names (value attributes of the same name stay). */
export async function deleteFileAttributes(
  db: Queryable,
  datastore: string,
  items: { entityId: string; name: string }[],
): Promise<number> {
  const valid = items.filter((item) => isEntityId(item.entityId));
  if (valid.length === 0) return 0;
  const { rowCount } = await db.query(
    `DELETE FROM entity_files f USING unnest($2::uuid[], $3::text[]) AS t(entity_id, name)
      WHERE f.datastore = $1 AND f.complete AND f.entity_id = t.entity_id AND f.attribute_name = t.name`,
    [datastore, valid.map((item) => item.entityId.toLowerCase()), valid.map((item) => item.name)],
  );
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
  const removed = await db.query('DELETE FROM entities WHERE datastore = $1 AND id = ANY($2::uuid[])', [
    datastore,
    ids,
  ]);
  const counts = rows[0] ?? { attributes: 0, files: 0 };
  return { entities: removed.rowCount, attributes: Number(counts.attributes), files: Number(counts.files) };
}

/** Deletes the entities themselves (with their attributes and files; children lose the reference). */
export async function deleteEntities(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const wanted = entityIds(ids);
  if (wanted.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    'DELETE FROM entities WHERE datastore = $1 AND id = ANY($2::uuid[]) RETURNING id',
    [datastore, wanted],
  );
  return new Set(rows.map((row) => row.id));
}

export interface NewEntity {
  id: string;
  name: string;
  parentIds: string[];
  attributes: { name: string; value: string | null }[];
}

/**
 * Inserts entities with their references and sealed attributes; the caller checked ids and parents.
 * Three statements whatever the batch size (entities, references, attributes, each a multi-row INSERT
 * over unnest of arrays): a create of 100 entities x 5 attributes was 600 round trips.
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
  await db.query(
    'INSERT INTO entities (id, datastore, name) SELECT id, $1, name FROM unnest($2::uuid[], $3::text[]) AS t(id, name)',
    [datastore, entities.map((entity) => entity.id), entities.map((entity) => entity.name)],
  );
  const references = entities.flatMap((entity) =>
    entity.parentIds.map((parentId) => ({ childId: entity.id, parentId })),
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
      `INSERT INTO entity_attributes (entity_id, name, datastore, value_sealed, blind_index)
       SELECT entity_id, name, $1, value_sealed, blind_index
         FROM unnest($2::uuid[], $3::text[], $4::bytea[], $5::bytea[]) AS t(entity_id, name, value_sealed, blind_index)`,
      [
        datastore,
        attributes.map((attribute) => attribute.entityId),
        attributes.map((attribute) => attribute.name),
        sealed,
        indexes,
      ],
    );
  }
}
