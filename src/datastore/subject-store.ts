// The subject data of Area B, in SQL: reading entities, each one row holding its document (its sealed
// attributes, its parents and its files: entity-document.ts), and walking subtrees (writes are in
// subject-writes.ts).
// Every function takes a Queryable so that a caller (the HTTP API, or the privacy-request engine running
// a whole datastore in one transaction) decides the transaction; values cross this boundary decrypted.
// It never decides an HTTP status; the audit log it writes only when a caller hands a read its entry, in
// the read's own statement (audit-log.ts's auditedRead).
import { auditedRead, type ReadAuditEntry } from '../audit/audit-log.ts';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { badRequest } from '../errors.ts';
import {
  earlierAttributes,
  earlierFiles,
  earlierParents,
  type EntityRow,
  openEntity,
  type SubjectEntity,
} from './entity-document.ts';
import { blindIndex } from './sealing.ts';

export type { SubjectEntity } from './entity-document.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Entity ids are UUIDs; anything else can name no entity (and must not reach a uuid column). */
export function isEntityId(value: string): boolean {
  return UUID.test(value);
}

/** The valid entity ids among `ids`, lower-cased and without repeats. */
export const entityIds = (ids: readonly string[]) => [
  ...new Set(ids.filter(isEntityId).map((id) => id.toLowerCase())),
];

export async function listDatastoreNames(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM datastores ORDER BY name');
  return rows.map((row) => row.name);
}

/**
 * The most (attribute, entity) matches one identity lookup (get-by-identity, a privacy request's match over
 * a datastore) may find. Past it the lookup is refused with 400: a value shared by a whole table (a
 * country, a status) is no identity, and reading every holder would hold the database and the event loop.
 */
export const MAX_IDENTITY_MATCHES = 10_000;

export function tooManyMatches(): Error {
  return badRequest(
    `The identities match more than ${MAX_IDENTITY_MATCHES} entities, the most one lookup may read; ` +
      'look up values that identify a subject.',
  );
}

/**
 * Reading rows of the datastore `$1` by entity id, the SQL that probes an index once per id in every plan.
 * Every statement runs as a prepared statement whose generic plan a connection keeps. When the statistics
 * say a datastore is small (it just grew, or many small datastores hide one large one), the generic plan
 * of `datastore = $1 AND id = ANY($2)` reads every row of the datastore and filters them, so that reading
 * or erasing one subject costs as much as the datastore is large. A LATERAL probe with OFFSET 0 (which
 * keeps it from being flattened into a join the planner may hash) leaves the planner no such choice;
 * test/datastore/generic-plans.test.ts holds the reads and the writes to it. An UPDATE or a DELETE cannot
 * drive its target table through such a probe: entity-rows.ts locks the rows through it first.
 */
export const WANTED_IDS = '(SELECT DISTINCT unnest($2::uuid[])) AS wanted(id)';

/** The entity of `$1` with the id `idColumn`, as the FROM item `e`, after a FROM item that yields the id. */
export const entityProbe = (idColumn: string) =>
  `CROSS JOIN LATERAL (SELECT * FROM entities WHERE datastore = $1 AND id = ${idColumn} OFFSET 0) AS e`;

/**
 * The (entity, blind index) pairs of the datastore `$1` for the blind indexes `$2`, at most `$3`: one probe
 * of the blind-index index per value in every plan (see WANTED_IDS).
 */
const IDENTITY_HITS = `
  SELECT a.entity_id, a.blind_index
    FROM (SELECT DISTINCT unnest($2::bytea[])) AS wanted(blind_index)
   CROSS JOIN LATERAL (
     SELECT entity_id, blind_index FROM entity_attributes
      WHERE datastore = $1 AND blind_index = wanted.blind_index OFFSET 0
   ) AS a
   LIMIT $3`;

/** For each value, the ids of the entities holding an attribute equal to it, through the blind index. */
export async function matchIdentities(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  values: readonly string[],
): Promise<string[][]> {
  if (values.length === 0) return [];
  const indexes = values.map((value) => blindIndex(keyring, datastore, value));
  const { rows } = await db.query<{ entity_id: string; blind_index: Uint8Array }>(
    `WITH hits AS (${IDENTITY_HITS})
     SELECT h.entity_id, h.blind_index
       FROM hits h JOIN entities e ON e.datastore = $1 AND e.id = h.entity_id
      ORDER BY e.created_at, e.id`,
    [datastore, indexes, MAX_IDENTITY_MATCHES + 1],
  );
  if (rows.length > MAX_IDENTITY_MATCHES) throw tooManyMatches();
  const byIndex = new Map<string, Set<string>>();
  for (const row of rows) {
    const key = Buffer.from(row.blind_index).toString('hex');
    byIndex.set(key, (byIndex.get(key) ?? new Set()).add(row.entity_id));
  }
  return indexes.map((index) => [...(byIndex.get(index.toString('hex')) ?? [])]);
}

export async function findEntityIdsByIdentity(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  values: string[],
): Promise<string[]> {
  return [...new Set((await matchIdentities(db, keyring, datastore, values)).flat())];
}

/**
 * The most entities one subtree call (sar, forget, user/delete, a privacy request's run over a datastore)
 * may reach. Past it the call is refused with 400 before any entity is read: one call must not hold the
 * database for minutes. docs/area-b.md and docs/security.md name it.
 */
export const MAX_SUBTREE_ENTITIES = 10_000;

/** The subtree walk from the roots `source` binds as `e`; `isRoot` tests `e.id` against `$2`. */
const subtreeSelect = (source: string, isRoot: string) => `
  WITH RECURSIVE tree(id) AS (
    SELECT e.id FROM ${source}
    UNION
    SELECT c.child_id FROM tree t
      CROSS JOIN LATERAL (
        SELECT child_id FROM entity_references r WHERE r.datastore = $1 AND r.parent_id = t.id OFFSET 0
      ) AS c
  )
  SELECT e.id, e.name
    FROM (SELECT id FROM tree LIMIT $3) AS t ${entityProbe('t.id')}
   ORDER BY e.id ${isRoot} DESC, e.created_at, e.id`;

const ONE_ROOT_SUBTREE = subtreeSelect('entities e WHERE e.datastore = $1 AND e.id = $2::uuid', '= $2::uuid');

/**
 * The ids (and tables) of the roots found in the datastore and of every descendant, each once, roots
 * first then by age. The recursion removes duplicates on the entity alone, so each entity is expanded
 * once however many paths reach it (work linear in the references of the subtree); it stops after
 * MAX_SUBTREE_ENTITIES + 1 entities, and a larger subtree is refused. OFFSET 0 keeps the children of
 * each new parent an index lookup: joined plainly, the planner hash-joins the whole reference table on
 * every level of the recursion, which is quadratic again.
 */
export async function subtreeOf(
  db: Queryable,
  datastore: string,
  rootIds: readonly string[],
): Promise<{ id: string; name: string }[]> {
  const roots = entityIds(rootIds);
  if (roots.length === 0) return [];
  // One root (a subject's usual tree) by equality, for the reason loadEntities reads one id so.
  const { rows } = await db.query<{ id: string; name: string }>(
    roots.length === 1
      ? ONE_ROOT_SUBTREE
      : subtreeSelect(`${WANTED_IDS} ${entityProbe('wanted.id')}`, '= ANY($2::uuid[])'),
    [datastore, roots.length === 1 ? roots[0] : roots, MAX_SUBTREE_ENTITIES + 1],
  );
  if (rows.length > MAX_SUBTREE_ENTITIES) {
    throw badRequest(
      `The entities reached from ${roots.join(', ')} are more than ${MAX_SUBTREE_ENTITIES}, the most one call may read or erase; ` +
        'split the subject into smaller subtrees or remove references.',
    );
  }
  return rows;
}

/**
 * Entities as the reads answer them: one row each, its document whole (entity-document.ts), so that
 * reading an entity is one probe of the primary key. `$1` is the datastore; `source` must bind the
 * entities as `e`.
 */
const entitySelect = (source: string) => `
  SELECT e.id, e.name, e.created_at, e.attributes, e.parents, e.files FROM ${source}`;

const ONE_ENTITY_SELECT = entitySelect('entities e WHERE e.datastore = $1 AND e.id = $2::uuid');
const ENTITIES_SELECT = entitySelect(`${WANTED_IDS} ${entityProbe('wanted.id')}`);
const AUDITED_ONE_ENTITY_SELECT = auditedRead(ONE_ENTITY_SELECT, 2);
const AUDITED_ENTITIES_SELECT = auditedRead(ENTITIES_SELECT, 2);

/** The same rows, those still in the earlier layout built from it (entity-document.ts). */
const EARLIER_LAYOUT_SELECT = `
  SELECT e.id, e.name, e.created_at,
         coalesce(e.attributes, ${earlierAttributes('e')}) AS attributes,
         CASE WHEN e.attributes IS NULL THEN ${earlierParents('e')} ELSE e.parents END AS parents,
         CASE WHEN e.attributes IS NULL THEN ${earlierFiles('e')} ELSE e.files END AS files
    FROM ${WANTED_IDS} ${entityProbe('wanted.id')}`;

/**
 * The rows read, those of entities not moved to the document yet (while entity-layout.ts moves them) read
 * again through the earlier layout: one more statement only then, and only for them. A row that went
 * away in between (deleted) is left out.
 */
async function fromEitherLayout(db: Queryable, datastore: string, rows: EntityRow[]): Promise<EntityRow[]> {
  const earlier = rows.filter((row) => row.attributes === null).map((row) => row.id);
  if (earlier.length === 0) return rows;
  const { rows: moved } = await db.query<EntityRow>(EARLIER_LAYOUT_SELECT, [datastore, earlier]);
  const byId = new Map(moved.map((row) => [row.id, row]));
  return rows.flatMap((row) => (row.attributes === null ? (byId.get(row.id) ?? []) : [row]));
}

/**
 * The entities of the datastore with these ids, decrypted, in the order of `ids`; unknown ids are left out.
 * With `audit`, the same statement records the read (auditedRead), even of no valid id: run it outside a
 * transaction and the entry is committed when this resolves.
 */
export async function loadEntities(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  ids: readonly string[],
  audit?: ReadAuditEntry,
): Promise<SubjectEntity[]> {
  const wanted = entityIds(ids);
  if (wanted.length === 0 && !audit) return [];
  // One id (most reads) by equality: the generic plan of the array form looks ten times costlier than
  // its custom plan (the planner guesses 10 elements), so PostgreSQL would plan it again on every call,
  // which cost more than running it (test/datastore/plan-cache.test.ts).
  const one = wanted.length === 1;
  const params = [datastore, one ? wanted[0] : wanted];
  const statement = audit
    ? (one ? AUDITED_ONE_ENTITY_SELECT : AUDITED_ENTITIES_SELECT)(params, audit)
    : { sql: one ? ONE_ENTITY_SELECT : ENTITIES_SELECT, params };
  const { rows } = await db.query<EntityRow>(statement.sql, statement.params);
  const read = await fromEitherLayout(db, datastore, rows);
  const byId = new Map(read.map((row) => [row.id, openEntity(keyring, datastore, row)]));
  return wanted.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The entities holding the blind indexes `$2` (at most `$3` hits), each once with the indexes it matched,
 * and the number of hits: one probe of the blind index per value, then one of the primary key per entity.
 */
const IDENTITY_READ = `
  WITH hits AS MATERIALIZED (${IDENTITY_HITS})
  SELECT e.id, e.name, e.created_at, e.attributes, e.parents, e.files, h.matched,
         (SELECT count(*) FROM hits)::int AS hits
    FROM (SELECT entity_id, array_agg(DISTINCT blind_index) AS matched FROM hits GROUP BY entity_id) AS h
    ${entityProbe('h.entity_id')}`;

const IDENTITY_READ_OLDEST_FIRST = `${IDENTITY_READ} ORDER BY e.created_at, e.id`;
const AUDITED_IDENTITY_READ = auditedRead(IDENTITY_READ, 3, {
  recordIf: `coalesce((SELECT max(hits) FROM read), 0) <= ${MAX_IDENTITY_MATCHES}`,
  orderBy: 'ORDER BY created_at, id',
});

/**
 * For each value, the entities holding an attribute equal to it (through the blind index), decrypted,
 * oldest first: the lookup and the read in one statement, as get-by-identity answers them. With `audit`,
 * the same statement records the read (auditedRead), unless it is refused for matching too many.
 */
export async function loadEntitiesByIdentity(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  values: readonly string[],
  audit?: ReadAuditEntry,
): Promise<SubjectEntity[][]> {
  if (values.length === 0 && !audit) return [];
  const indexes = values.map((value) => blindIndex(keyring, datastore, value));
  const params = [datastore, indexes, MAX_IDENTITY_MATCHES + 1];
  const statement = audit
    ? AUDITED_IDENTITY_READ(params, audit)
    : { sql: IDENTITY_READ_OLDEST_FIRST, params };
  const { rows } = await db.query<EntityRow & { matched: Uint8Array[]; hits: number }>(
    statement.sql,
    statement.params,
  );
  if ((rows[0]?.hits ?? 0) > MAX_IDENTITY_MATCHES) throw tooManyMatches();
  const read = await fromEitherLayout(db, datastore, rows);
  const matched = new Map(rows.map((row) => [row.id, row.matched]));
  const byIndex = new Map<string, SubjectEntity[]>();
  for (const row of read) {
    const entity = openEntity(keyring, datastore, row);
    for (const index of matched.get(row.id) ?? []) {
      const key = Buffer.from(index).toString('hex');
      const holders = byIndex.get(key) ?? [];
      holders.push(entity);
      byIndex.set(key, holders);
    }
  }
  return indexes.map((index) => byIndex.get(index.toString('hex')) ?? []);
}

/** The roots and every descendant (entities referencing them, transitively), each once, level by level. */
export async function loadSubtrees(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  rootIds: string[],
): Promise<SubjectEntity[]> {
  const tree = await subtreeOf(db, datastore, rootIds);
  const entities = await loadEntities(
    db,
    keyring,
    datastore,
    tree.map((entity) => entity.id),
  );
  return levelByLevel(entities, new Set(entityIds(rootIds)));
}

/** Roots first, then each entity after the first of its parents to be placed (breadth first), stably. */
function levelByLevel(entities: SubjectEntity[], roots: Set<string>): SubjectEntity[] {
  const children = new Map<string, SubjectEntity[]>();
  for (const entity of entities) {
    for (const { parentId } of entity.parents) {
      const siblings = children.get(parentId) ?? [];
      siblings.push(entity);
      children.set(parentId, siblings);
    }
  }
  const placed = new Set<string>();
  const ordered = entities.filter((entity) => roots.has(entity.id));
  for (const entity of ordered) placed.add(entity.id);
  for (let next = 0; next < ordered.length; next++) {
    for (const child of children.get((ordered[next] as SubjectEntity).id) ?? []) {
      if (placed.has(child.id)) continue;
      placed.add(child.id);
      ordered.push(child);
    }
  }
  return ordered;
}

/**
 * The table and the creation time (in microseconds since 1970, as PostgreSQL orders it: a Date keeps only
 * milliseconds) of each entity of the datastore among `ids`, by lower-case id.
 */
export async function entityHeads(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Map<string, { name: string; createdMicros: bigint }>> {
  const wanted = entityIds(ids);
  if (wanted.length === 0) return new Map();
  const { rows } = await db.query<{ id: string; name: string; created_us: string }>(
    `SELECT e.id, e.name, (extract(epoch FROM e.created_at) * 1000000)::bigint::text AS created_us
       FROM ${WANTED_IDS} ${entityProbe('wanted.id')}`,
    [datastore, wanted],
  );
  return new Map(rows.map((row) => [row.id, { name: row.name, createdMicros: BigInt(row.created_us) }]));
}

/** The table name of each entity of the datastore among `ids`, by lower-case id (non-UUIDs match nothing). */
export async function entityTables(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const heads = await entityHeads(db, datastore, ids);
  return new Map([...heads].map(([id, head]) => [id, head.name]));
}

/** Ids already taken by an entity of the datastore (ids are scoped to their datastore: another's are free). */
export async function takenEntityIds(
  db: Queryable,
  datastore: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const wanted = entityIds(ids);
  if (wanted.length === 0) return new Set();
  const { rows } = await db.query<{ id: string }>(
    `SELECT e.id FROM ${WANTED_IDS} ${entityProbe('wanted.id')}`,
    [datastore, wanted],
  );
  return new Set(rows.map((row) => row.id));
}
