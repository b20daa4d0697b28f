// The records a business keeps of its requests (CCPA regs §7101: 24 months; §7102: yearly figures): a CSV
// written row by row from pages of the database, so that years of requests never sit in memory, and the
// year's figures. No identity value is ever read: the rows hold ids, dates, types and outcomes.
import { actionType, type RecordsCategory } from '../actions/registry.ts';
import type { Queryable } from '../db/database.ts';
import { localDate, wholeDaysBetween } from '../deadlines/calendar.ts';
import { timeZoneOf } from '../deadlines/clock.ts';
import {
  type ActionTypeFigures,
  type RecordRow,
  reportRepository,
  type YearFigures,
} from './report-repository.ts';

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
  'manner',
  'response_date',
  'denial_reason',
  'refused_late',
  'cancel_reason_code',
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

/**
 * A row of the CSV. `response_date` is the local day of the answer where the request's law counts its days
 * (its location's or jurisdiction's zone, or LETHE_TIME_ZONE when set: docs/deadlines.md), so that it reads
 * against `due_date`'s last day.
 */
function csvLine(row: RecordRow, zoneOverride: string | null): string {
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
    row.manner,
    row.decided_at === null
      ? null
      : localDate(row.decided_at, timeZoneOf(row.location, row.jurisdiction, zoneOverride)),
    row.status === 'denied' ? row.denial_reason : null,
    row.refused_late,
    row.cancel_reason_code,
  ]
    .map(csvField)
    .join(',')}\r\n`;
}

/**
 * The CSV of the requests received in [from, to), header first, one page of rows at a time; `zoneOverride`
 * is LETHE_TIME_ZONE when set (config.deadlineTimeZone).
 */
export async function* requestRecordsCsv(
  db: Queryable,
  from: Date,
  to: Date,
  zoneOverride: string | null = null,
): AsyncGenerator<string> {
  yield `${CSV_COLUMNS.join(',')}\r\n`;
  let after: string | null = null;
  for (;;) {
    const rows = await reportRepository.recordsPage(db, from, to, after, PAGE);
    if (rows.length > 0) yield rows.map((row) => csvLine(row, zoneOverride)).join('');
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return;
    after = last.id;
  }
}

/** The categories of CCPA regs §7102, in its order; `limit` counts requests to limit sensitive data. */
export const METRICS_CATEGORIES = ['know', 'delete', 'correct', 'opt_out', 'limit'] as const;
export type MetricsCategory = (typeof METRICS_CATEGORIES)[number] | 'other';

export interface CategoryFigures {
  category: MetricsCategory;
  received: number;
  complied: number;
  denied: number;
  closed_unverifiable: number;
  operator_canceled: number;
  median_days: number | null;
  mean_days: number | null;
}

export interface YearMetrics {
  year: number;
  jurisdiction: string | null;
  by_category: CategoryFigures[];
  by_action_type: YearFigures[];
}

const round = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

function median(sorted: readonly number[]): number | null {
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The category of an action type, from the action registry (src/actions/): each type says the category
 * its requests count under. A request of a policy without a registered action (`other`) has none.
 */
function categoryOf(name: string): MetricsCategory {
  const category: RecordsCategory | undefined = actionType(name)?.category;
  return category ?? 'other';
}

/** Sums the action types' figures into the categories: every §7102 category, `other` only when it has requests. */
function byCategory(figures: readonly ActionTypeFigures[]): CategoryFigures[] {
  const categories: MetricsCategory[] = [...METRICS_CATEGORIES];
  if (figures.some((figure) => categoryOf(figure.action_type) === 'other')) categories.push('other');
  return categories.map((category) => {
    const mine = figures.filter((figure) => categoryOf(figure.action_type) === category);
    const sum = (pick: (figure: ActionTypeFigures) => number) =>
      mine.reduce((total, figure) => total + pick(figure), 0);
    const days = mine.flatMap((figure) => figure.days).sort((a, b) => a - b);
    return {
      category,
      received: sum((figure) => figure.received),
      complied: sum((figure) => figure.complied),
      denied: sum((figure) => figure.denied),
      closed_unverifiable: sum((figure) => figure.closed_unverifiable),
      operator_canceled: sum((figure) => figure.operator_canceled),
      median_days: round(median(days)),
      mean_days: round(days.length === 0 ? null : days.reduce((a, b) => a + b, 0) / days.length),
    };
  });
}

/**
 * §7102's figures of the requests received in the calendar year (UTC), under `jurisdiction` when given:
 * per CCPA category, and per action type.
 */
export async function yearMetrics(
  db: Queryable,
  year: number,
  jurisdiction: string | null = null,
): Promise<YearMetrics> {
  const figures = await reportRepository.figures(
    db,
    new Date(Date.UTC(year, 0, 1)),
    new Date(Date.UTC(year + 1, 0, 1)),
    jurisdiction,
  );
  return {
    year,
    jurisdiction,
    by_category: byCategory(figures),
    by_action_type: figures.map((figure) => ({
      action_type: figure.action_type,
      received: figure.received,
      complied: figure.complied,
      denied: figure.denied,
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
