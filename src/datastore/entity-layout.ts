// The online move of entities from the earlier layout (one row per attribute holding its sealed value,
// references and files in their own tables) into the document of migration 029 (entity-document.ts),
// while the service answers. Migration 029 only adds columns; this runs in the worker, in short batches:
//   move    every entity whose `attributes` is NULL gets its document, a batch of rows at a time, each
//           batch one transaction (a kill -9 loses at most the batch in flight; the next start goes on
//           with the rows still NULL). Rows a write holds are skipped: that write moves the entity itself.
//   verify  every entity, in (datastore, id) order from a checkpoint kept with the batch: each value opens
//           under its own entity and name, its blind-index row matches it, the copy the earlier layout
//           kept equals it, the parents equal the references and the files the bound files. A verified
//           entity's earlier copies are then cleared (value_sealed NULL), so no value is kept twice.
//   done    nothing left to do; a failed check is counted and its entity id kept (never a value).
// Every batch locks the one state row, so several workers take turns instead of doing the work twice.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Keyring } from '../crypto/keyring.ts';
import type { Database, Queryable } from '../db/database.ts';
import { isStoreUnavailable } from '../db/database.ts';
import {
  type AttributesDocument,
  documentSet,
  earlierFiles,
  earlierParents,
  type FilesDocument,
  type ParentsDocument,
} from './entity-document.ts';
import { blindIndex, openAttributeValue, openFileName } from './sealing.ts';

export type LayoutPhase = 'move' | 'verify' | 'done';

export interface LayoutState {
  phase: LayoutPhase;
  moved: number;
  verified: number;
  mismatched: number;
  mismatchedIds: string[];
}

/** Entities per batch: one batch is a few tens of milliseconds of work on either side. */
export const LAYOUT_BATCH = 500;
const MISMATCHED_IDS_KEPT = 100;
/** Entities verified between two turns of the event loop (about a millisecond of CPU). */
const VERIFY_SLICE = 25;

export async function layoutState(db: Queryable): Promise<LayoutState> {
  const { rows } = await db.query<{
    phase: LayoutPhase;
    moved: string;
    verified: string;
    mismatched: string;
    mismatched_ids: string[];
  }>('SELECT phase, moved, verified, mismatched, mismatched_ids FROM entity_layout_migration');
  const row = rows[0];
  if (!row) throw new Error('entity_layout_migration has no row: migration 029 did not run');
  return {
    phase: row.phase,
    moved: Number(row.moved),
    verified: Number(row.verified),
    mismatched: Number(row.mismatched),
    mismatchedIds: row.mismatched_ids,
  };
}

/** One batch of the move; answers how many entities it moved (0: none left that no write holds). */
async function moveBatch(db: Database, size: number): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM entity_layout_migration FOR UPDATE');
    // The rows are locked first and built in a second statement, whose snapshot is taken after the locks:
    // it sees every write that held one of them (entity/delete rewrites the children it takes parents
    // from, for this reason).
    const { rows } = await tx.query<{ address: string }>(
      `SELECT ctid::text AS address FROM entities WHERE attributes IS NULL LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [size],
    );
    if (rows.length === 0) return 0;
    const { rowCount } = await tx.query(
      `UPDATE entities e SET ${documentSet('e')} WHERE e.ctid = ANY($1::tid[])`,
      [rows.map((row) => row.address)],
    );
    await tx.query(
      `UPDATE entity_layout_migration SET moved = moved + $1, started_at = coalesce(started_at, now())`,
      [rowCount],
    );
    return rowCount;
  });
}

/** After a move batch found nothing: the next phase when no entity is left, else false (a write holds some). */
async function finishMove(db: Queryable): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE entity_layout_migration SET phase = 'verify', moved_at = now()
      WHERE phase = 'move' AND NOT EXISTS (SELECT FROM entities WHERE attributes IS NULL)`,
  );
  return rowCount > 0;
}

interface VerifiedRow {
  datastore: string;
  id: string;
  attributes: AttributesDocument | null;
  parents: ParentsDocument | null;
  files: FilesDocument | null;
  /** [name, blind index hex | null, the earlier layout's sealed copy base64 | null] */
  index_rows: [string, string | null, string | null][];
  reference_parents: ParentsDocument;
  bound_files: FilesDocument;
}

const canonical = (value: unknown) => JSON.stringify(value);
const sortedBy = <T>(items: readonly T[], key: (item: T) => string) =>
  items.toSorted((left, right) => (key(left) < key(right) ? -1 : key(left) > key(right) ? 1 : 0));

/** Whether an entity's document holds exactly what its rows say, every value opening where it belongs. */
function documentMatches(keyring: Keyring, row: VerifiedRow): boolean {
  if (row.attributes === null || row.parents === null || row.files === null) return false;
  const names = Object.keys(row.attributes).sort();
  const indexRows = sortedBy(row.index_rows, (entry) => entry[0]);
  if (canonical(names) !== canonical(indexRows.map((entry) => entry[0]))) return false;
  try {
    for (const [name, index, earlierCopy] of indexRows) {
      const sealed = row.attributes[name] ?? null;
      if ((sealed === null) !== (index === null)) return false;
      if (sealed === null) continue;
      if (earlierCopy !== null && earlierCopy !== sealed) return false;
      const value = openAttributeValue(keyring, row.datastore, row.id, name, Buffer.from(sealed, 'base64'));
      if (blindIndex(keyring, row.datastore, value).toString('hex') !== index) return false;
    }
    for (const [fileId, , sealedName] of row.files) {
      openFileName(keyring, row.datastore, fileId, Buffer.from(sealedName, 'base64'));
    }
  } catch {
    return false;
  }
  const files = (items: FilesDocument) =>
    canonical(sortedBy(items, (file) => file[1]).map((file) => [...file.slice(0, 4), Number(file[4])]));
  return (
    canonical(row.parents) === canonical(row.reference_parents) && files(row.files) === files(row.bound_files)
  );
}

/** One batch of the verification; answers how many entities it checked (0: all were). */
async function verifyBatch(db: Database, keyring: Keyring, size: number): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: state } = await tx.query<{ datastore: string | null; id: string | null }>(
      `SELECT checkpoint_datastore AS datastore, checkpoint_id AS id FROM entity_layout_migration
        WHERE phase = 'verify' FOR UPDATE`,
    );
    const checkpoint = state[0];
    if (!checkpoint) return 0;
    // Locked first (never waiting: a write holding one makes the batch start again a moment later), then
    // read in a second statement whose snapshot sees every write that held them: the document and its
    // rows as one write left them.
    const { rows: keys } = await tx.query<{ datastore: string; id: string }>(
      `SELECT datastore, id FROM entities
        WHERE ${checkpoint.datastore === null ? '$1::text IS NULL AND $2::uuid IS NULL' : '(datastore, id) > ($1::text, $2::uuid)'}
        ORDER BY datastore, id LIMIT $3 FOR UPDATE NOWAIT`,
      [checkpoint.datastore, checkpoint.id, size],
    );
    const { rows } = await tx.query<VerifiedRow>(
      `SELECT e.datastore, e.id, e.attributes, e.parents, e.files,
              (SELECT coalesce(jsonb_agg(jsonb_build_array(a.name, encode(a.blind_index, 'hex'),
                                 translate(encode(a.value_sealed, 'base64'), E'\\n', ''))), '[]')
                 FROM entity_attributes a WHERE a.datastore = e.datastore AND a.entity_id = e.id) AS index_rows,
              ${earlierParents('e')} AS reference_parents,
              ${earlierFiles('e')} AS bound_files
         FROM unnest($1::text[], $2::uuid[]) WITH ORDINALITY AS k(datastore, id, position)
        CROSS JOIN LATERAL (SELECT * FROM entities WHERE datastore = k.datastore AND id = k.id OFFSET 0) AS e
        ORDER BY k.position`,
      [keys.map((key) => key.datastore), keys.map((key) => key.id)],
    );
    const last = rows.at(-1);
    if (!last) {
      await tx.query(`UPDATE entity_layout_migration SET phase = 'done', finished_at = now()`);
      return 0;
    }
    const good: VerifiedRow[] = [];
    const bad: string[] = [];
    for (const [position, row] of rows.entries()) {
      // Opening and indexing a batch's values is milliseconds of CPU: the service's requests get turns.
      if (position > 0 && position % VERIFY_SLICE === 0) await setImmediate();
      if (documentMatches(keyring, row)) good.push(row);
      else bad.push(`${row.datastore}/${row.id}`);
    }
    await tx.query(
      `UPDATE entity_attributes a SET value_sealed = NULL
         FROM unnest($1::text[], $2::uuid[]) AS checked(datastore, id)
        WHERE a.datastore = checked.datastore AND a.entity_id = checked.id AND a.value_sealed IS NOT NULL`,
      [good.map((row) => row.datastore), good.map((row) => row.id)],
    );
    await tx.query(
      `UPDATE entity_layout_migration
          SET verified = verified + $1, mismatched = mismatched + $2,
              mismatched_ids = (mismatched_ids || $3::text[])[1:${MISMATCHED_IDS_KEPT}],
              checkpoint_datastore = $4, checkpoint_id = $5`,
      [rows.length, bad.length, bad, last.datastore, last.id],
    );
    return rows.length;
  });
}

/** A verification batch met a row a write holds (FOR UPDATE NOWAIT): it starts again a moment later. */
const isLockNotAvailable = (error: unknown) => (error as { code?: unknown } | null)?.code === '55P03';

export interface LayoutMigrationOptions {
  batchSize?: number;
  /** A pause between batches, leaving the store to the service's own work. */
  pauseMs?: number;
  /** Progress and failures, never a value. */
  announce?: (message: string) => void;
}

export interface RunningLayoutMigration {
  /** Resolves with the state it last read: `done`, or where it stopped (none if it never read one). */
  finished: Promise<LayoutState | undefined>;
  stop(): Promise<LayoutState | undefined>;
}

/**
 * Moves and verifies until the phase is `done` or stop() is called. A store that cannot be reached is
 * waited for (the batch in flight rolled back); any other failure is announced and retried after a pause.
 */
export function runLayoutMigration(
  db: Database,
  keyring: Keyring,
  { batchSize = LAYOUT_BATCH, pauseMs = 0, announce = () => {} }: LayoutMigrationOptions = {},
): RunningLayoutMigration {
  const stopping = new AbortController();
  const run = async (): Promise<LayoutState | undefined> => {
    let state: LayoutState | undefined;
    let announcedAt = 0;
    while (!stopping.signal.aborted) {
      try {
        state = await layoutState(db);
        if (state.phase === 'done') break;
        if (Date.now() - announcedAt > 10_000) {
          announcedAt = Date.now();
          announce(`entity layout: ${state.phase} (moved ${state.moved}, verified ${state.verified})`);
        }
        if (state.phase === 'move') {
          if ((await moveBatch(db, batchSize)) === 0 && !(await finishMove(db))) await pause(100);
        } else if ((await verifyBatch(db, keyring, batchSize)) === 0) {
          state = await layoutState(db);
          announce(
            `entity layout: done (moved ${state.moved}, verified ${state.verified}, mismatched ${state.mismatched})`,
          );
          break;
        }
        await pause(pauseMs);
      } catch (error) {
        if (stopping.signal.aborted) break;
        if (!isLockNotAvailable(error))
          announce(`entity layout: a batch failed, retrying: ${(error as Error).message}`);
        await pause(isStoreUnavailable(error) ? 1000 : isLockNotAvailable(error) ? 50 : 5000);
      }
    }
    return state;
  };
  const pause = (ms: number) => sleep(ms, undefined, { signal: stopping.signal }).catch(() => {});
  const finished = run();
  return {
    finished,
    stop: () => {
      stopping.abort();
      return finished;
    },
  };
}
