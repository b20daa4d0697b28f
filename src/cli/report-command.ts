// `lethe report requests [--from DATE] [--to DATE] > file.csv`: the records of requests as CSV on standard
// output, written page by page as GET /v1/report/requests.csv streams them (no identity value).
import { reportPeriod, requestRecordsCsv } from '../reports/records.ts';
import type { Services } from '../services.ts';
import { parseCommandArguments, usageError } from './arguments.ts';

export const REPORT_USAGE = `Usage:
  lethe report requests [--from DATE] [--to DATE] > requests.csv
      the records of requests received in the period as CSV, one row per request, no identity value
      (DATE: 2026-01-31, a whole day in UTC, or a date-time; default: the 24 months up to now)
`;

export interface ReportCommand {
  from: Date;
  to: Date;
}

const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export function parseReportCommand(argv: string[]): ReportCommand {
  const { values, positionals } = parseCommandArguments(
    argv,
    { from: { type: 'string' }, to: { type: 'string' } },
    REPORT_USAGE,
  );
  if (positionals.length !== 1 || positionals[0] !== 'requests')
    throw usageError(REPORT_USAGE, 'the report is `requests`.');
  for (const option of ['from', 'to'] as const) {
    const value = values[option];
    if (value !== undefined && (!DATE_OR_TIME.test(value) || Number.isNaN(Date.parse(value))))
      throw usageError(REPORT_USAGE, `--${option} must be a date such as 2026-01-31 or a date-time.`);
  }
  const period = reportPeriod(values.from, values.to);
  if (period.from >= period.to) throw usageError(REPORT_USAGE, '--from must be before --to.');
  return period;
}

/** Writes the CSV to `out` chunk by chunk, waiting when the pipe is full. */
export async function runReportCommand(
  services: Services,
  command: ReportCommand,
  out: NodeJS.WritableStream,
): Promise<void> {
  for await (const chunk of requestRecordsCsv(
    services.db,
    command.from,
    command.to,
    services.config.deadlineTimeZone,
  )) {
    if (!out.write(chunk)) await new Promise((resolve) => out.once('drain', resolve));
  }
}
