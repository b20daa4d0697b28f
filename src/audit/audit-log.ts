// The append-only audit log: who did what to which subject, when, through which request. Entries carry
// ids, counts and actions, never attribute values (a SAR recipient is sealed by the caller). Any area
// records through recordAudit inside the transaction of the change it describes (reads, which have no
// transaction, through appendAudit); nothing here updates or deletes an entry (the table's triggers
// refuse it anyway).
import { auditActor, type Principal } from '../auth/scopes.ts';
import type { Queryable } from '../db/database.ts';
import { canonicalAction, storedSpellings } from './action-names.ts';

export interface AuditEntry {
  action: string;
  datastore?: string;
  entityId?: string;
  /** For calls touching several entities. */
  entityIds?: readonly string[];
  /** `api-key:<id>`, `client:<id>` or `user:<username>`. */
  actor: string;
  requestId?: string;
  /** The caller's address as the throttles see it (the forwarded client's behind a trusted proxy). */
  clientAddress?: string;
  details?: Record<string, unknown>;
  recipientSealed?: Buffer;
}

/** Where an audited call came from: its request id and the caller's address. */
export interface AuditOrigin {
  requestId: string;
  clientAddress?: string;
}

export interface AuditRecord {
  seq: number;
  at: string;
  action: string;
  datastore: string | null;
  entity_ids: string[];
  actor: string;
  request_id: string | null;
  client_address: string | null;
  details: Record<string, unknown>;
  recipient_sealed: Uint8Array | null;
}

/** Entity ids kept per entry; a larger batch records its count and the first ids. */
const MAX_IDS_PER_ENTRY = 1000;

const COLUMNS = 8;
/** Entries written by one statement of appendAudit; more wait for the next one. */
const MAX_ENTRIES_PER_STATEMENT = 200;

function rowParams(entry: AuditEntry): unknown[] {
  const ids = [...new Set([...(entry.entityId ? [entry.entityId] : []), ...(entry.entityIds ?? [])])];
  return [
    entry.action,
    entry.datastore ?? null,
    ids.slice(0, MAX_IDS_PER_ENTRY),
    entry.actor,
    entry.requestId ?? null,
    entry.clientAddress ?? null,
    JSON.stringify(entry.details ?? {}),
    entry.recipientSealed ?? null,
  ];
}

async function insertEntries(db: Queryable, entries: readonly AuditEntry[]): Promise<void> {
  const rows = entries.map((_, row) => {
    const base = row * COLUMNS;
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4}, $${base + 5}, $${base + 6}, $${base + 7}, $${base + 8})`;
  });
  await db.query(
    `INSERT INTO audit_log (action, datastore, entity_ids, actor, request_id, client_address, details, recipient_sealed)
     VALUES ${rows.join(', ')}`,
    entries.flatMap(rowParams),
  );
}

/** Records one entry inside the caller's transaction: it commits or rolls back with the change. */
export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  await insertEntries(tx, [entry]);
}

interface Pending {
  entry: AuditEntry;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Group commit for entries that belong to no transaction (reads: get-by-id, get-by-identity, download,
 * SAR). While one INSERT is in flight, the entries of concurrent calls queue and the next INSERT writes
 * them all at once. Each caller still waits until its own entry is committed, so an answer is never
 * sent for a read whose audit entry could be lost; one commit (one WAL flush) serves many requests.
 * A failed INSERT fails every call of its batch, as a failed single INSERT failed its one call.
 */
class AuditAppender {
  readonly #db: Queryable;
  #queue: Pending[] = [];
  #writing = false;

  constructor(db: Queryable) {
    this.#db = db;
  }

  append(entry: AuditEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, MAX_ENTRIES_PER_STATEMENT);
      try {
        await insertEntries(
          this.#db,
          batch.map((pending) => pending.entry),
        );
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    }
    this.#writing = false;
  }
}

/** The entry of a read that records itself (auditedRead): its ids and `found` come from the rows read. */
export type ReadAuditEntry = Omit<AuditEntry, 'entityId' | 'entityIds' | 'recipientSealed'>;

export interface AuditedReadOptions {
  /** An SQL condition over the CTE `read`: the entry is written only when it holds. */
  recordIf?: string;
  /** The order of the rows answered (the read's own ORDER BY does not reach past the CTE). */
  orderBy?: string;
}

/** A read's statement with its entry's INSERT, and its parameters for one call. */
export type AuditedStatement = (
  params: readonly unknown[],
  entry: ReadAuditEntry,
) => { sql: string; params: unknown[] };

/**
 * A read of subject data and the INSERT of its audit entry as ONE statement: the INSERT is a
 * data-modifying CTE over the read's rows, recording the ids read (`details.found` counts them). Run
 * outside a transaction, the statement commits on its own, and its result reaches the caller only once
 * the server is ready for the next statement, that is after the commit (and its WAL flush): the read is
 * never answered before its entry is durable. One round trip and one commit a read, and concurrent reads
 * share WAL flushes through PostgreSQL's own group commit, where AuditAppender queues every read behind
 * the INSERT in flight (one at a time: reads then wait on a chain of flushes, bench/README.md issue 29).
 * `read` uses the parameters `$1`..`$<readParams>` and yields the entity of each row as `id`. The text is
 * built once here (a statement's text is looked up on every call to find its prepared statement).
 */
export function auditedRead(
  read: string,
  readParams: number,
  { recordIf = 'true', orderBy = '' }: AuditedReadOptions = {},
): AuditedStatement {
  const at = (offset: number) => `$${readParams + offset}`;
  const sql = `WITH read AS (${read}),
     recorded AS (
       INSERT INTO audit_log (action, datastore, entity_ids, actor, request_id, client_address, details)
       SELECT ${at(1)}::text, ${at(2)}::text,
              coalesce((SELECT array_agg(ids.id::text) FROM (SELECT id FROM read LIMIT ${MAX_IDS_PER_ENTRY}) AS ids), '{}'),
              ${at(3)}::text, ${at(4)}::text, ${at(5)}::text,
              ${at(6)}::jsonb || jsonb_build_object('found', (SELECT count(*) FROM read))
        WHERE ${recordIf}
     )
     SELECT * FROM read ${orderBy}`;
  return (params, entry) => {
    if (params.length !== readParams) throw new Error(`the read takes ${readParams} parameters`);
    return {
      sql,
      params: [
        ...params,
        entry.action,
        entry.datastore ?? null,
        entry.actor,
        entry.requestId ?? null,
        entry.clientAddress ?? null,
        JSON.stringify(entry.details ?? {}),
      ],
    };
  };
}

const appenders = new WeakMap<Queryable, AuditAppender>();

/** Records one entry outside any transaction; resolves once it is committed (see AuditAppender). */
export function appendAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  let appender = appenders.get(db);
  if (!appender) {
    appender = new AuditAppender(db);
    appenders.set(db, appender);
  }
  return appender.append(entry);
}

export interface AuditFilter {
  datastore?: string;
  entityId?: string;
  /** An action (`connection.delete`) or its family (`connection`: every `connection.*`). */
  action?: string;
  actor?: string;
  from?: Date;
  to?: Date;
  page: number;
  size: number;
}

/**
 * The WHERE clause of a listing and its parameters, naming only the filters given. One statement text
 * for every combination (`$1::text IS NULL OR datastore = $1`...) would share one prepared statement per
 * connection, and after five executions PostgreSQL may settle on its generic plan, which cannot use any
 * index for such a condition: every filtered page then reads the whole log (10 million rows: seconds).
 */
function auditWhere(filter: AuditFilter): { where: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (param: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filter.datastore !== undefined) add((param) => `datastore = ${param}::text`, filter.datastore);
  if (filter.entityId !== undefined)
    add((param) => `entity_ids @> ARRAY[${param}::text]`, filter.entityId.toLowerCase());
  if (filter.action !== undefined) {
    // The action's older spelling too (action-names.ts): an OR of the same indexable shape per spelling.
    const spellings = storedSpellings(filter.action).map((spelling) => {
      params.push(spelling);
      const param = `$${params.length}`;
      return `action = ${param}::text OR starts_with(action, ${param}::text || '.')`;
    });
    conditions.push(`(${spellings.join(' OR ')})`);
  }
  if (filter.actor !== undefined) add((param) => `actor = ${param}::text`, filter.actor);
  if (filter.from !== undefined) add((param) => `at >= ${param}::timestamptz`, filter.from);
  if (filter.to !== undefined) add((param) => `at < ${param}::timestamptz`, filter.to);
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '', params };
}

export async function listAudit(
  db: Queryable,
  filter: AuditFilter,
): Promise<{ rows: AuditRecord[]; total: number }> {
  const { where, params } = auditWhere(filter);
  // bigint as count(*) answers it: at 5,000 audited reads a second the log passes 2^31 rows in five days.
  const total = await db.query<{ total: number }>(`SELECT count(*) AS total FROM audit_log ${where}`, params);
  const columns =
    'seq, at, action, datastore, entity_ids, actor, request_id, client_address, details, recipient_sealed';
  // A subject's entries are found through the entity-id index and then sorted (OFFSET 0 keeps the planner
  // from merging the two). Left to itself it walks the whole log newest first, filtering, whenever it
  // guesses the subject common (it guesses a few thousand entries for any id): 2.8 s at 10 million rows
  // for a subject of 21 entries. The sort costs what the count of the same entries already costs.
  const matching =
    filter.entityId === undefined
      ? `audit_log ${where}`
      : `(SELECT ${columns} FROM audit_log ${where} OFFSET 0) AS matching`;
  const { rows } = await db.query<AuditRecord>(
    `SELECT ${columns} FROM ${matching} ORDER BY seq DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, filter.size, (filter.page - 1) * filter.size],
  );
  return {
    rows: rows.map((row) => ({ ...row, action: canonicalAction(row.action) })),
    total: Number(total.rows[0]?.total ?? 0),
  };
}

/** Who makes a management change and through which HTTP request (or CLI run): services take it. */
export interface ChangeActor extends AuditOrigin {
  principal: Principal;
}

/**
 * The configuration audit: one entry per management change, written by the service in the transaction
 * of the change. `details` names what was touched (keys, ids, field names, counts), never a secret or
 * a personal value.
 */
export async function recordChange(
  tx: Queryable,
  by: ChangeActor,
  action: string,
  details: Record<string, unknown>,
): Promise<void> {
  await recordAudit(tx, {
    action,
    actor: auditActor(by.principal),
    requestId: by.requestId,
    clientAddress: by.clientAddress,
    details,
  });
}
