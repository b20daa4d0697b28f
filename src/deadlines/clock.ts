// The rules of the clock, free of storage and HTTP: which jurisdiction a request falls under, when it is
// due, whether it may be extended, and the windows of an appeal. Every function takes the instant it
// reasons about and the time zone whose local days it counts (locations.ts's timeZoneOf), so the rules read
// the same in a test, a route or the worker.
import { endOfBusinessDaysAfter, endOfDaysAfter, endOfMonthsAfter, wholeDaysBetween } from './calendar.ts';
import { type Jurisdiction, jurisdictionByCode, type Period } from './jurisdictions.ts';

export { jurisdictionOf, timeZoneOf } from './locations.ts';

/** The end of the last local day of `period` counted from the local day of `from`. */
export function endOfPeriod(from: Date, period: Period, zone: string): Date {
  return 'months' in period
    ? endOfMonthsAfter(from, period.months, zone)
    : endOfDaysAfter(from, period.days, zone);
}

/**
 * An opt-out of sale or sharing is honoured within 15 business days of its receipt (CCPA regulations
 * §7026(f)(1)), whatever the jurisdiction's general deadline, and is never extended.
 */
export const OPT_OUT_BUSINESS_DAYS = 15;

export function optOutDueDate(requestedAt: Date, zone: string): Date {
  return endOfBusinessDaysAfter(requestedAt, OPT_OUT_BUSINESS_DAYS, zone);
}

/** The statutory deadline of a request received at `requestedAt` under `jurisdiction`. */
export function statutoryDueDate(requestedAt: Date, jurisdiction: Jurisdiction, zone: string): Date {
  return endOfPeriod(requestedAt, jurisdiction.response, zone);
}

/**
 * The earliest of the statutory deadline (when a jurisdiction applies), the policy's timeframe in days and,
 * for a policy that records an opt-out or consent, the opt-out's 15 business days; each ends at the end of
 * its last local day in `zone`.
 */
export function dueDateOf(
  requestedAt: Date,
  jurisdictionCode: string | null,
  timeframeDays: number,
  zone: string,
  optOut = false,
): Date {
  const jurisdiction = jurisdictionByCode(jurisdictionCode);
  const candidates = [endOfDaysAfter(requestedAt, timeframeDays, zone)];
  if (jurisdiction) candidates.push(statutoryDueDate(requestedAt, jurisdiction, zone));
  if (optOut) candidates.push(optOutDueDate(requestedAt, zone));
  return new Date(Math.min(...candidates.map((date) => date.getTime())));
}

/** When the receipt must be confirmed, where the law sets a time (CCPA regs §7021(a): 10 business days). */
export function acknowledgeDueDate(
  requestedAt: Date,
  jurisdictionCode: string | null,
  zone: string,
): Date | null {
  const days = jurisdictionByCode(jurisdictionCode)?.acknowledgeBusinessDays;
  return days === undefined ? null : endOfBusinessDaysAfter(requestedAt, days, zone);
}

/** Whole days left before `dueAt`, counted to `closedAt` once the request is closed (frozen), else to `now`. */
export function daysLeft(dueAt: Date, closedAt: Date | null, now: Date): number {
  return wholeDaysBetween(closedAt ?? now, dueAt);
}

export interface ExtensionState {
  closed: boolean;
  jurisdiction: string | null;
  extendedAt: Date | null;
  dueAt: Date;
  /** The request records an opt-out or consent (CCPA regs §7026(f): never extended). */
  optOut: boolean;
}

/** Why a request may not be extended at `now`, or undefined when it may (then `extendedDueDate`). */
export function extensionRefusal(request: ExtensionState, now: Date): string | undefined {
  if (request.closed) return 'the request is closed; only an open request can be extended.';
  if (request.optOut)
    return 'an opt-out is honoured within 15 business days and is never extended (CCPA regulations §7026(f)).';
  const jurisdiction = jurisdictionByCode(request.jurisdiction);
  if (!jurisdiction)
    return 'the request has no jurisdiction whose law allows an extension; set its location or its policy’s jurisdiction.';
  if (!jurisdiction.extension) return `${jurisdiction.name} gives no extension (${jurisdiction.citation}).`;
  if (request.extendedAt !== null) return 'the request was already extended; the law allows one extension.';
  if (now > request.dueAt)
    return 'the request is past its due date; an extension must be noticed before the deadline.';
  return undefined;
}

/** The due date after the one extension: moved by the jurisdiction's extension, to the end of a local day. */
export function extendedDueDate(dueAt: Date, jurisdiction: Jurisdiction, zone: string): Date {
  return jurisdiction.extension ? endOfPeriod(dueAt, jurisdiction.extension, zone) : dueAt;
}

/**
 * The last instant to appeal a denial decided at `decidedAt`: the end of the window's last local day (the
 * day the message names); undefined when the law gives no appeal.
 */
export function appealWindowEnd(
  decidedAt: Date,
  jurisdiction: Jurisdiction | undefined,
  zone: string,
): Date | undefined {
  return jurisdiction?.appealDays === undefined
    ? undefined
    : endOfDaysAfter(decidedAt, jurisdiction.appealDays, zone);
}

/** When an appeal received at `submittedAt` must be decided: the end of the last local day. */
export function appealDueDate(submittedAt: Date, jurisdiction: Jurisdiction, zone: string): Date {
  return endOfDaysAfter(submittedAt, jurisdiction.appealResponseDays ?? jurisdiction.appealDays ?? 60, zone);
}
