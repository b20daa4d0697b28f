// File attributes as sealed 256 KiB chunks in bytea rows. An upload is staged while its stream arrives
// (one short INSERT per chunk, so the store is never held for the length of an upload and the file is
// never whole in memory), then bound to its entity in one short transaction. A download is a stream
// that fetches and opens one chunk per query. Chunked bytea stays inside ordinary transactions and
// rows (no large objects to clean up apart from them). File names are data: sealed, never used as a path.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Keyring } from '../crypto/keyring.ts';
import { writeInChunks } from '../db/chunked-upload.ts';
import type { Database, Queryable } from '../db/database.ts';
import { notFound, tooLarge } from '../errors.ts';
import { documentSet, sealedText } from './entity-document.ts';
import { openFileChunk, openFileName, sealFileChunk, sealFileName } from './sealing.ts';

export const CHUNK_BYTES = 256 * 1024;
const SLICE_BYTES = 16 * 1024;
const STAGED_LIFETIME = '1 day';

/**
 * Streaming a file leaves about four bytes of dead buffers outside the JS heap for every byte moved (socket
 * reads, the sealed box, pg's messages). V8 frees them only when a GC happens to run, and starts one for
 * external memory only once about 64 MB has piled up: without this, RSS grew by 17 to 27 MB during a
 * 20 MiB transfer. A minor GC after every 512 KiB streamed (by all transfers together) frees them while
 * they are young, at a median 0.6 ms each. `gc` exists when Lethe runs with --expose-gc, as `npm start`
 * and bin/lethe.mjs run it; elsewhere (the tests) nothing is done.
 */
const COLLECT_EVERY_BYTES = 512 * 1024;
let streamedSinceCollection = 0;
function streamed(bytes: number) {
  streamedSinceCollection += bytes;
  if (streamedSinceCollection < COLLECT_EVERY_BYTES) return;
  streamedSinceCollection = 0;
  globalThis.gc?.({ type: 'minor' });
}

export interface StagedFile {
  id: string;
  size: number;
  chunkCount: number;
}

export interface StoredFile {
  id: string;
  fileName: string;
  contentType: string;
  size: number;
  chunkCount: number;
}

/**
 * Writes `source` as sealed chunks of a new staged file. Above `maxBytes` it stops writing, reads the rest
 * of the source to its end (so the client can read the answer), removes what it wrote and throws 413.
 */
export async function stageUpload(
  db: Database,
  keyring: Keyring,
  datastore: string,
  contentType: string,
  source: AsyncIterable<Buffer>,
  maxBytes: number,
): Promise<StagedFile> {
  await db.query(
    `DELETE FROM entity_files WHERE NOT complete AND created_at < now() - interval '${STAGED_LIFETIME}'`,
  );
  const id = randomUUID();
  await db.query('INSERT INTO entity_files (id, datastore, content_type) VALUES ($1, $2, $3)', [
    id,
    datastore,
    contentType,
  ]);
  let chunkNo = 0;
  const flush = async (bytes: Buffer) => {
    await db.query('INSERT INTO entity_file_chunks (file_id, chunk_no, data_sealed) VALUES ($1, $2, $3)', [
      id,
      chunkNo,
      sealFileChunk(keyring, datastore, id, chunkNo, bytes),
    ]);
    chunkNo += 1;
    streamed(bytes.length);
  };
  try {
    const { overLimit, size } = await writeInChunks(source, { chunkBytes: CHUNK_BYTES, maxBytes }, flush);
    if (overLimit)
      throw tooLarge(`The file is larger than the limit of ${maxBytes} bytes; nothing was stored.`);
    await db.query('UPDATE entity_files SET size = $2, chunk_count = $3 WHERE id = $1', [id, size, chunkNo]);
    return { id, size, chunkCount: chunkNo };
  } catch (error) {
    await discardStaged(db, id);
    throw error;
  }
}

export async function discardStaged(db: Queryable, fileId: string) {
  await db.query('DELETE FROM entity_files WHERE id = $1 AND NOT complete', [fileId]);
}

/** Binds a staged file to its entity's attribute, replacing the file it had. Run inside a transaction. */
export async function bindStaged(
  tx: Queryable,
  keyring: Keyring,
  datastore: string,
  staged: StagedFile,
  target: { entityId: string; attributeName: string; fileName: string },
) {
  const sealedName = sealedText(sealFileName(keyring, datastore, staged.id, target.fileName));
  // The entity's document first (its row's lock orders concurrent writes: entity-document.ts), the
  // attribute's previous file replaced by the staged one.
  const owner = await tx.query(
    `UPDATE entities e SET ${documentSet('e', {
      files: (current) => `
        (SELECT coalesce(jsonb_agg(f.entry), '[]') FROM jsonb_array_elements(${current}) AS f(entry)
          WHERE f.entry ->> 1 <> $3)
        || coalesce((SELECT jsonb_build_array(jsonb_build_array(s.id, $3::text, $4::text, s.content_type, s.size))
                       FROM entity_files s WHERE s.id = $5 AND s.datastore = e.datastore AND NOT s.complete), '[]')`,
    })}
      WHERE e.datastore = $1 AND e.id = $2 RETURNING e.id`,
    [datastore, target.entityId, target.attributeName, sealedName, staged.id],
  );
  if (owner.rows.length === 0)
    throw notFound(`No entity with id ${target.entityId} in datastore ${datastore}.`);
  await tx.query(
    'DELETE FROM entity_files WHERE datastore = $1 AND entity_id = $2 AND attribute_name = $3 AND complete',
    [datastore, target.entityId, target.attributeName],
  );
  await tx.query(
    `UPDATE entity_files SET entity_id = $2, attribute_name = $3, file_name_sealed = $4, complete = true
      WHERE id = $1 AND datastore = $5 AND NOT complete`,
    [staged.id, target.entityId, target.attributeName, Buffer.from(sealedName, 'base64'), datastore],
  );
}

export async function findFile(
  db: Queryable,
  keyring: Keyring,
  datastore: string,
  entityId: string,
  attributeName: string,
): Promise<StoredFile | undefined> {
  const { rows } = await db.query<{
    id: string;
    file_name_sealed: Uint8Array;
    content_type: string;
    size: number;
    chunk_count: number;
  }>(
    `SELECT id, file_name_sealed, content_type, size, chunk_count FROM entity_files
      WHERE datastore = $1 AND entity_id = $2 AND attribute_name = $3 AND complete`,
    [datastore, entityId, attributeName],
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    fileName: openFileName(keyring, datastore, row.id, row.file_name_sealed),
    contentType: row.content_type,
    size: Number(row.size),
    chunkCount: row.chunk_count,
  };
}

/**
 * The file's bytes as a stream that holds one opened chunk at a time. A chunk is read as rows of 16 KiB
 * slices: pg reads bytea as hex text, and one 256 KiB chunk in one row is a 512 KiB message that its parser
 * assembles by doubling a buffer per socket read (1.9 MB of dead buffers a chunk, against 0.13 MB in
 * slices). The binary result format would halve the text, but pg 8 decodes binary fields as UTF-8 and
 * corrupts them (brianc/node-postgres#3495).
 */
export function readFile(db: Queryable, keyring: Keyring, datastore: string, file: StoredFile): Readable {
  async function* chunks() {
    for (let chunkNo = 0; chunkNo < file.chunkCount; chunkNo += 1) {
      const { rows } = await db.query<{ slice: Uint8Array }>(
        `SELECT substring(data_sealed FROM start FOR ${SLICE_BYTES}) AS slice
           FROM entity_file_chunks, generate_series(1, length(data_sealed), ${SLICE_BYTES}) AS start
          WHERE file_id = $1 AND chunk_no = $2
          ORDER BY start`,
        [file.id, chunkNo],
      );
      if (rows.length === 0) throw new Error(`file ${file.id} lost chunk ${chunkNo} while it was read`);
      streamed(CHUNK_BYTES);
      yield* openFileChunk(
        keyring,
        datastore,
        file.id,
        chunkNo,
        rows.map((row) => row.slice),
      );
    }
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
}
