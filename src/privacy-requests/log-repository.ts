// SQL for privacy_request_log: the append-only history of a request (transitions, webhook calls, rule
// runs, notes). Entries never hold an identity, a header value or a response body.
import type { Queryable } from '../db/database.ts';
import type { Status } from './statuses.ts';
import type { StepKind } from './step-repository.ts';

export interface LogEntry {
  kind: 'transition' | 'webhook' | 'rules' | 'note';
  fromStatus?: Status | null;
  toStatus?: Status | null;
  webhookKey?: string | null;
  timing?: StepKind | null;
  direction?: string | null;
  targetHost?: string | null;
  httpStatus?: number | null;
  durationMs?: number | null;
  attempt?: number | null;
  error?: string | null;
  message?: string | null;
  details?: unknown;
}

/** A log entry for a move of the request from one status to another. */
export function transitionEntry(from: Status, to: Status, message: string): LogEntry {
  return { kind: 'transition', fromStatus: from, toStatus: to, message };
}

export interface LogRow {
  seq: number;
  at: Date;
  kind: LogEntry['kind'];
  from_status: string | null;
  to_status: string | null;
  webhook_key: string | null;
  timing: string | null;
  direction: string | null;
  target_host: string | null;
  http_status: number | null;
  duration_ms: number | null;
  attempt: number | null;
  error: string | null;
  message: string | null;
  details: unknown;
}

export const LOG_COLUMNS = `(privacy_request_id, kind, from_status, to_status, webhook_key, timing, direction, target_host,
                      http_status, duration_ms, attempt, error, message, details)`;

/**
 * The log rows of one request as a SELECT over a JSON array of entries (see logJson), in the array's
 * order: one multi-row INSERT whose `seq` follows the order the entries happened in.
 */
export function logRows(requestId: string, entries: string): string {
  return `SELECT ${requestId}, e->>'kind', e->>'from_status', e->>'to_status', e->>'webhook_key', e->>'timing',
                 e->>'direction', e->>'target_host', (e->>'http_status')::int, (e->>'duration_ms')::int,
                 (e->>'attempt')::int, e->>'error', e->>'message', e->'details'
            FROM jsonb_array_elements(${entries}::jsonb) WITH ORDINALITY AS entry(e, n)
           WHERE ${requestId} IS NOT NULL
           ORDER BY n`;
}

export function logJson(entries: readonly LogEntry[]): string {
  return JSON.stringify(entries.map(logObject));
}

function logObject(entry: LogEntry) {
  return {
    kind: entry.kind,
    from_status: entry.fromStatus ?? null,
    to_status: entry.toStatus ?? null,
    webhook_key: entry.webhookKey ?? null,
    timing: entry.timing ?? null,
    direction: entry.direction ?? null,
    target_host: entry.targetHost ?? null,
    http_status: entry.httpStatus ?? null,
    duration_ms: entry.durationMs ?? null,
    attempt: entry.attempt ?? null,
    error: entry.error ?? null,
    message: entry.message ?? null,
    details: entry.details,
  };
}

export const logRepository = {
  async appendLog(tx: Queryable, id: string, entries: readonly LogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await tx.query(`INSERT INTO privacy_request_log ${LOG_COLUMNS} ${logRows('$1::text', '$2')}`, [
      id,
      logJson(entries),
    ]);
  },

  /** The log entries of several requests in one statement, in the order given. */
  async appendLogs(tx: Queryable, entries: readonly { id: string; entry: LogEntry }[]): Promise<void> {
    if (entries.length === 0) return;
    await tx.query(`INSERT INTO privacy_request_log ${LOG_COLUMNS} ${logRows("e->>'request_id'", '$1')}`, [
      JSON.stringify(entries.map(({ id, entry }) => ({ ...logObject(entry), request_id: id }))),
    ]);
  },

  /** The details of the request's latest "policy rules ran" entry (the rule runner's summary). */
  async latestRulesSummary(db: Queryable, id: string): Promise<unknown> {
    const { rows } = await db.query<{ details: unknown }>(
      `SELECT details FROM privacy_request_log
        WHERE privacy_request_id = $1 AND kind = 'rules' AND details IS NOT NULL
        ORDER BY seq DESC LIMIT 1`,
      [id],
    );
    return rows[0]?.details;
  },

  async log(db: Queryable, id: string): Promise<LogRow[]> {
    const { rows } = await db.query<LogRow>(
      'SELECT * FROM privacy_request_log WHERE privacy_request_id = $1 ORDER BY seq',
      [id],
    );
    return rows;
  },
};
