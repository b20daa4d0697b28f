// The records a business keeps of its requests (CCPA regs §7101: 24 months; §7102: yearly figures): a CSV
// written row by row from pages of the database, so that years of requests never sit in memory, and the
// year's figures. No identity value is ever read: the rows hold ids, dates, types and outcomes.
import type { Queryable } from '../db/database.ts';
import { wholeDaysBetween } from '../deadlines/calendar.ts';
import { type RecordRow, reportRepository, type YearFigures } from './report-repository.ts';

const PAGE = 500;

export const CSV_COLUMNS = [
  'id',
  'received_at',
  'action_type',
  'jurisdiction',
  'status',
  'decided_at',
  'days_to_respond',
  'due_date',
  'extended',
  'appealed',
  'appeal_outcome',
  'duplicate_of',
  'excessive',
] as const;

/**
 * A CSV field: quoted when it holds a separator, a quote or a line break; a text starting with a formula
 * sign gets a leading apostrophe so that a spreadsheet shows it instead of running it.
 */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvLine(row: RecordRow): string {
  const iso = (at: Date | null) => (at === null ? null : at.toISOString());
  const appealed = row.appeal_status !== null && row.appeal_status !== 'open';
  return `${[
    row.id,
    iso(row.requested_at),
    row.action_type,
    row.jurisdiction,
    row.status,
    iso(row.decided_at),
    row.decided_at === null ? null : wholeDaysBetween(row.requested_at, row.decided_at),
    iso(row.due_at),
    row.extended_at !== null,
    appealed,
    appealed && (row.appeal_status === 'upheld' || row.appeal_status === 'reversed')
      ? row.appeal_status
      : null,
    row.duplicate_of,
    row.excessive,
  ]
    .map(csvField)
    .join(',')}\r\n`;
}

/** The CSV of the requests received in [from, to), header first, one page of rows at a time. */
export async function* requestRecordsCsv(db: Queryable, from: Date, to: Date): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let after: string | null = null;
  for (;;) {
    const rows = await reportRepository.recordsPage(db, from, to, after, PAGE);
    if (rows.length > 0) yield rows.map(csvLine).join('');
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = last.id;
  }
}

export interface YearMetrics {
  year: number;
  by_action_type: YearFigures[];
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

/** §7102's figures of the requests received in the calendar year (UTC). */
export async function yearMetrics(db: Queryable, year: number): Promise<YearMetrics> {
  const figures = await reportRepository.figures(
    db,
    new Date(Date.UTC(year, 0, 1)),
    new Date(Date.UTC(year + 1, 0, 1)),
  );
  return {
    year,
    by_action_type: figures.map((figure) => ({
      ...figure,
      median_days: round(figure.median_days),
      mean_days: round(figure.mean_days),
    })),
  };
}

/** The period a report covers: `from` (default 24 months before `to`) to `to` (default now), end excluded. */
export function reportPeriod(from: string | undefined, to: string | undefined, now = new Date()) {
  const end = to === undefined ? now : endOf(to);
  const start =
    from === undefined
      ? new Date(Date.UTC(end.getUTCFullYear() - 2, end.getUTCMonth(), end.getUTCDate()))
      : new Date(from);
  return { from: start, to: end };
}

/** A date alone (2026-03-31) covers its whole day; a date-time is taken as it is. */
function endOf(value: string): Date {
  const at = new Date(value);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(at.getTime() + 86_400_000) : at;
}
