// The append-only audit log: who did what to which subject, when, through which request. Entries carry
// ids, counts and actions, never attribute values (a SAR recipient is sealed by the caller). Any area
// records through recordAudit inside the transaction of the change it describes; nothing here updates
// or deletes an entry (the table's triggers refuse it anyway).
import type { Queryable } from '../db/database.ts';

export interface AuditEntry {
  action: string;
  datastore?: string;
  entityId?: string;
  /** For calls touching several entities. */
  entityIds?: readonly string[];
  /** `api-key:<id>` or `client:<id>`. */
  actor: string;
  requestId?: string;
  details?: Record<string, unknown>;
  recipientSealed?: Buffer;
}

export interface AuditRecord {
  seq: number;
  at: string;
  action: string;
  datastore: string | null;
  entity_ids: string[];
  actor: string;
  request_id: string | null;
  details: Record<string, unknown>;
  recipient_sealed: Uint8Array | null;
}

/** Entity ids kept per entry; a larger batch records its count and the first ids. */
const MAX_IDS_PER_ENTRY = 1000;

export async function recordAudit(tx: Queryable, entry: AuditEntry): Promise<void> {
  const ids = [...new Set([...(entry.entityId ? [entry.entityId] : []), ...(entry.entityIds ?? [])])];
  await tx.query(
    `INSERT INTO audit_log (action, datastore, entity_ids, actor, request_id, details, recipient_sealed)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      entry.action,
      entry.datastore ?? null,
      ids.slice(0, MAX_IDS_PER_ENTRY),
      entry.actor,
      entry.requestId ?? null,
      JSON.stringify(entry.details ?? {}),
      entry.recipientSealed ?? null,
    ],
  );
}

export interface AuditFilter {
  datastore?: string;
  entityId?: string;
  action?: string;
  page: number;
  size: number;
}

export async function listAudit(
  db: Queryable,
  filter: AuditFilter,
): Promise<{ rows: AuditRecord[]; total: number }> {
  const where = `WHERE ($1::text IS NULL OR datastore = $1)
                   AND ($2::text IS NULL OR entity_ids @> ARRAY[$2::text])
                   AND ($3::text IS NULL OR action = $3)`;
  const params = [filter.datastore ?? null, filter.entityId?.toLowerCase() ?? null, filter.action ?? null];
  const total = await db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM audit_log ${where}`,
    params,
  );
  const { rows } = await db.query<AuditRecord>(
    `SELECT seq, at, action, datastore, entity_ids, actor, request_id, details, recipient_sealed
       FROM audit_log ${where} ORDER BY seq DESC LIMIT $4 OFFSET $5`,
    [...params, filter.size, (filter.page - 1) * filter.size],
  );
  return { rows, total: Number(total.rows[0]?.total ?? 0) };
}
