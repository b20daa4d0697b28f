// Bulk loading of entities from an NDJSON file (one /api/entity/create item per line) into a datastore,
// through SubjectService.createEntities, the code path of the HTTP API. Each batch and the import's
// checkpoint (next line, next byte, digest of the imported prefix) commit in one transaction, so an
// import stopped by Ctrl-C or a crash continues on re-run without repeating or skipping a line.
// Never prints (the command owns the terminal) and never writes an error message in clear to the store:
// a message may quote a value from the file.
import { createHash, type Hash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import type { Keyring } from '../crypto/keyring.ts';
import { openImportError, sealImportError } from './sealing.ts';
import type { Database, Queryable } from '../db/database.ts';
import { conflict, notFound } from '../errors.ts';
import { datastoreRepository } from './admin-repository.ts';
import { EntityCreateInput, validated } from './entity-input.ts';
import type { SubjectService } from './subject-service.ts';
import type { CreatedItem, EntityInput } from './subject-items.ts';

/** createEntities takes at most this many items (the API's batch limit). */
export const MAX_BATCH_SIZE = 1000;
/** A longer line is reported as an error and skipped, so one runaway line cannot exhaust memory. */
export const MAX_LINE_BYTES = 128 * 1024 * 1024;
const NEWLINE = 0x0a;

export interface ImportOptions {
  datastore: string;
  /** Absolute path of the NDJSON file. */
  file: string;
  batchSize: number;
  /** Forget the checkpoint and errors of an earlier import of this file and start at line 1. */
  restart: boolean;
  /** Checked after every committed batch; true stops the import there (it can be resumed). */
  shouldStop?: () => boolean;
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  /** Bytes of the file imported so far (all runs) and the file's size. */
  bytesDone: number;
  bytesTotal: number;
  /** This run's counts. */
  lines: number;
  created: number;
  failed: number;
}

export interface LineError {
  line: number;
  message: string;
}

export interface ImportResult {
  /** The line this run started at (1 for a fresh import). */
  startLine: number;
  /** The next line to import; the file has `nextLine - 1` lines when `finished`. */
  nextLine: number;
  finished: boolean;
  /** This run's counts and duration. */
  lines: number;
  created: number;
  failed: number;
  seconds: number;
  /** Counts of every run of this import. */
  totalCreated: number;
  totalFailed: number;
  /** The first `errorLimit` failed lines of every run, by line number. */
  errors: LineError[];
}

interface Checkpoint {
  id: string;
  next_line: number;
  next_byte: number;
  prefix_digest: Uint8Array;
  created: number;
  failed: number;
}

interface PendingLine {
  line: number;
  item: EntityInput;
}

const CHECKPOINT_COLUMNS = 'id, next_line, next_byte, prefix_digest, created, failed';
const EntityItem = EntityCreateInput.items;

async function loadCheckpoint(db: Database, datastore: string, source: string, restart: boolean) {
  return db.transaction(async (tx) => {
    if (restart)
      await tx.query('DELETE FROM entity_imports WHERE datastore = $1 AND source = $2', [datastore, source]);
    await tx.query(
      `INSERT INTO entity_imports (id, datastore, source, next_line, next_byte, prefix_digest)
       VALUES ($1, $2, $3, 1, 0, $4) ON CONFLICT (datastore, source) DO NOTHING`,
      [randomUUID(), datastore, source, createHash('sha256').digest()],
    );
    const { rows } = await tx.query<Checkpoint>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM entity_imports WHERE datastore = $1 AND source = $2`,
      [datastore, source],
    );
    return rows[0] as Checkpoint;
  });
}

/** Hashes the file's first `bytes` bytes; undefined when the file is shorter. */
async function hashPrefix(file: string, bytes: number): Promise<Hash | undefined> {
  const hash = createHash('sha256');
  if (bytes === 0) return hash;
  let read = 0;
  for await (const chunk of createReadStream(file, { start: 0, end: bytes - 1 })) {
    hash.update(chunk as Buffer);
    read += (chunk as Buffer).length;
  }
  return read === bytes ? hash : undefined;
}

/**
 * Splits the file from `start` into lines (text undefined: longer than MAX_LINE_BYTES) with their exact
 * byte length, newline included. Each line's bytes go into `hash` just before the line is yielded, so
 * while the consumer holds a line the hash covers the file exactly up to its end.
 */
async function* linesOf(
  file: string,
  start: number,
  hash: Hash,
): AsyncGenerator<{ text: string | undefined; length: number }> {
  let carry: Buffer[] = [];
  let carried = 0;
  let overlong = false;
  const finish = (tail: Buffer) => {
    for (const piece of carry) hash.update(piece);
    hash.update(tail);
    const length = carried + tail.length;
    const text = overlong
      ? undefined
      : Buffer.concat([...carry, tail])
          .toString('utf8')
          .replace(/\r?\n$/, '');
    carry = [];
    carried = 0;
    overlong = false;
    return { text, length };
  };
  for await (const chunk of createReadStream(file, { start, highWaterMark: 1024 * 1024 })) {
    let buffer = chunk as Buffer;
    for (let newline = buffer.indexOf(NEWLINE); newline >= 0; newline = buffer.indexOf(NEWLINE)) {
      const line = finish(buffer.subarray(0, newline + 1));
      yield line;
      buffer = buffer.subarray(newline + 1);
    }
    if (buffer.length === 0) continue;
    carried += buffer.length;
    if (!overlong && carried > MAX_LINE_BYTES) {
      overlong = true;
      for (const piece of carry) hash.update(piece);
      carry = [];
    }
    // An overlong line's bytes are hashed as they pass and not kept.
    if (overlong) hash.update(buffer);
    else carry.push(Buffer.from(buffer));
  }
  if (carried > 0) yield finish(Buffer.alloc(0));
}

function duplicateName(item: EntityInput): string | undefined {
  const seen = new Set<string>();
  for (const attribute of item.attributes ?? []) {
    if (seen.has(attribute.name)) return attribute.name;
    seen.add(attribute.name);
  }
  return undefined;
}

/** Checks one line as the API would check one item, so a bad line fails alone, never its batch. */
function parseLine(text: string, idsInBatch: Map<string, number>): EntityInput | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    return `not valid JSON${position === undefined ? '' : ` (at character ${Number(position) + 1})`}.`;
  }
  let item: EntityInput;
  try {
    item = validated<EntityInput>(EntityItem, 'entity', value);
  } catch (error) {
    return (error as Error).message;
  }
  const repeated = duplicateName(item);
  if (repeated !== undefined) return `the attribute name ${JSON.stringify(repeated)} appears twice.`;
  const id = item.id?.toLowerCase();
  if (id !== undefined) {
    const earlier = idsInBatch.get(id);
    if (earlier !== undefined) return `the id ${id} was already given on line ${earlier}.`;
  }
  return item;
}

export class EntityImporter {
  readonly #db: Database;
  readonly #keyring: Keyring;
  readonly #subjects: SubjectService;

  constructor(db: Database, keyring: Keyring, subjects: SubjectService) {
    this.#db = db;
    this.#keyring = keyring;
    this.#subjects = subjects;
  }

  async run(options: ImportOptions, errorLimit: number): Promise<ImportResult> {
    const { datastore, file } = options;
    if (!(await datastoreRepository.exists(this.#db, datastore))) {
      throw notFound(
        `No datastore named ${datastore}; create it first (lethe datastore create ${datastore}).`,
      );
    }
    const { size } = await stat(file);
    const checkpoint = await loadCheckpoint(this.#db, datastore, file, options.restart);
    const hash = await hashPrefix(file, checkpoint.next_byte);
    if (!hash || !hash.copy().digest().equals(Buffer.from(checkpoint.prefix_digest))) {
      throw conflict(
        `${file} changed since its lines 1 to ${checkpoint.next_line - 1} were imported into ${datastore}; ` +
          'pass --restart to import it again from line 1 (entities imported before stay).',
      );
    }

    const started = performance.now();
    const run = { lines: 0, created: 0, failed: 0 };
    const state = { nextLine: checkpoint.next_line, nextByte: checkpoint.next_byte };
    let batch: PendingLine[] = [];
    let batchErrors: LineError[] = [];
    let idsInBatch = new Map<string, number>();
    let batchLines = 0;
    let batchBytes = 0;
    let stopped = false;

    const flush = async () => {
      const committed = await this.#commitBatch(checkpoint.id, datastore, state, {
        items: batch,
        lineErrors: batchErrors,
        lines: batchLines,
        bytes: batchBytes,
        digest: hash.copy().digest(),
      });
      run.lines += batchLines;
      run.created += committed.created;
      run.failed += committed.failed;
      state.nextLine += batchLines;
      state.nextByte += batchBytes;
      batch = [];
      batchErrors = [];
      idsInBatch = new Map();
      batchLines = 0;
      batchBytes = 0;
      options.onProgress?.({ bytesDone: state.nextByte, bytesTotal: size, ...run });
      // On the embedded store a whole import can run in microtasks; give signals and output their turn.
      await setImmediate();
      stopped = options.shouldStop?.() ?? false;
    };

    for await (const line of linesOf(file, checkpoint.next_byte, hash)) {
      const lineNo = state.nextLine + batchLines;
      batchLines += 1;
      batchBytes += line.length;
      if (line.text === undefined) {
        batchErrors.push({ line: lineNo, message: `longer than ${MAX_LINE_BYTES} bytes.` });
      } else if (line.text.trim() !== '') {
        const parsed = parseLine(line.text, idsInBatch);
        if (typeof parsed === 'string') {
          batchErrors.push({ line: lineNo, message: parsed });
        } else {
          batch.push({ line: lineNo, item: parsed });
          if (parsed.id) idsInBatch.set(parsed.id.toLowerCase(), lineNo);
        }
      }
      if (batch.length + batchErrors.length >= options.batchSize) {
        await flush();
        if (stopped) break;
      }
    }
    if (!stopped && batchLines > 0) await flush();

    const totals = await this.#db.query<{ created: number; failed: number }>(
      'SELECT created, failed FROM entity_imports WHERE id = $1',
      [checkpoint.id],
    );
    return {
      startLine: checkpoint.next_line,
      nextLine: state.nextLine,
      finished: !stopped,
      ...run,
      seconds: (performance.now() - started) / 1000,
      totalCreated: Number(totals.rows[0]?.created ?? 0),
      totalFailed: Number(totals.rows[0]?.failed ?? 0),
      errors: await this.#errors(checkpoint.id, datastore, errorLimit),
    };
  }

  /** One transaction: the batch's entities, its failed lines and the advanced checkpoint. */
  async #commitBatch(
    importId: string,
    datastore: string,
    from: { nextLine: number; nextByte: number },
    batch: { items: PendingLine[]; lineErrors: LineError[]; lines: number; bytes: number; digest: Buffer },
  ): Promise<{ created: number; failed: number }> {
    const ctx = { datastore, actor: 'client:cli', requestId: `cli-import-${randomUUID()}` };
    let counts = { created: 0, failed: 0 };
    const record = async (tx: Queryable, results: CreatedItem[]) => {
      const failures = [...batch.lineErrors];
      results.forEach((result, index) => {
        const line = batch.items[index]?.line as number;
        const reference = result.references.find((candidate) => candidate.error);
        const error = result.error ?? reference?.error;
        if (error) failures.push({ line, message: `${error.code}: ${error.message}` });
      });
      for (const failure of failures) {
        await tx.query(
          'INSERT INTO entity_import_errors (import_id, line, message_sealed) VALUES ($1, $2, $3)',
          [
            importId,
            failure.line,
            sealImportError(this.#keyring, datastore, importId, failure.line, failure.message),
          ],
        );
      }
      const created = results.length - (failures.length - batch.lineErrors.length);
      const advanced = await tx.query(
        `UPDATE entity_imports
            SET next_line = next_line + $3, next_byte = next_byte + $4, prefix_digest = $5,
                created = created + $6, failed = failed + $7, updated_at = now()
          WHERE id = $1 AND next_byte = $2`,
        [importId, from.nextByte, batch.lines, batch.bytes, batch.digest, created, failures.length],
      );
      if (advanced.rowCount !== 1) {
        throw conflict(
          `Another lethe import of this file into ${datastore} moved its checkpoint past line ${from.nextLine}; stopped.`,
        );
      }
      counts = { created, failed: failures.length };
    };
    if (batch.items.length > 0) {
      await this.#subjects.createEntities(
        ctx,
        batch.items.map((pending) => pending.item),
        record,
      );
    } else {
      await this.#db.transaction((tx) => record(tx, []));
    }
    return counts;
  }

  async #errors(importId: string, datastore: string, limit: number): Promise<LineError[]> {
    const { rows } = await this.#db.query<{ line: number; message_sealed: Uint8Array }>(
      'SELECT line, message_sealed FROM entity_import_errors WHERE import_id = $1 ORDER BY line LIMIT $2',
      [importId, limit],
    );
    return rows.map((row) => ({
      line: Number(row.line),
      message: openImportError(this.#keyring, datastore, importId, Number(row.line), row.message_sealed),
    }));
  }
}
