// The rules of the clock, free of storage and HTTP: which jurisdiction a request falls under, when it is
// due, whether it may be extended, and the windows of an appeal. Every function takes the instant it
// reasons about, so the rules read the same in a test, a route or the worker.
import { addBusinessDays, addCalendarMonths, addDays, wholeDaysBetween } from './calendar.ts';
import { type Jurisdiction, jurisdictionByCode, type Period } from './jurisdictions.ts';
import { readLocation } from './locations.ts';

export function addPeriod(from: Date, period: Period): Date {
  return 'months' in period ? addCalendarMonths(from, period.months) : addDays(from, period.days);
}

/** The request's own location first (ISO 3166), else its policy's jurisdiction, else none. */
export function jurisdictionOf(location: string | null, policyJurisdiction: string | null): string | null {
  if (location !== null) {
    const reading = readLocation(location);
    if (reading.known && reading.jurisdiction !== null && jurisdictionByCode(reading.jurisdiction))
      return reading.jurisdiction;
  }
  return jurisdictionByCode(policyJurisdiction)?.code ?? null;
}

/**
 * An opt-out of sale or sharing is honoured within 15 business days of its receipt (CCPA regulations
 * §7026(f)(1)), whatever the jurisdiction's general deadline.
 */
export const OPT_OUT_BUSINESS_DAYS = 15;

export function optOutDueDate(requestedAt: Date): Date {
  return addBusinessDays(requestedAt, OPT_OUT_BUSINESS_DAYS);
}

/**
 * The earliest of the statutory deadline (when a jurisdiction applies), the policy's timeframe in days
 * and, for a policy that records an opt-out or consent, the opt-out's 15 business days.
 */
export function dueDateOf(
  requestedAt: Date,
  jurisdictionCode: string | null,
  timeframeDays: number,
  optOut = false,
): Date {
  const jurisdiction = jurisdictionByCode(jurisdictionCode);
  const candidates = [addDays(requestedAt, timeframeDays)];
  if (jurisdiction) candidates.push(addPeriod(requestedAt, jurisdiction.response));
  if (optOut) candidates.push(optOutDueDate(requestedAt));
  return new Date(Math.min(...candidates.map((date) => date.getTime())));
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
}

/** Why a request may not be extended at `now`, or undefined when it may (then `extendedDueDate`). */
export function extensionRefusal(request: ExtensionState, now: Date): string | undefined {
  if (request.closed) return 'the request is closed; only an open request can be extended.';
  const jurisdiction = jurisdictionByCode(request.jurisdiction);
  if (!jurisdiction)
    return 'the request has no jurisdiction whose law allows an extension; set its location or its policy’s jurisdiction.';
  if (request.extendedAt !== null) return 'the request was already extended; the law allows one extension.';
  if (now >= request.dueAt)
    return 'the request is past its due date; an extension must be noticed before the deadline.';
  return undefined;
}

/** The due date after the one extension: moved by the jurisdiction's extension. */
export function extendedDueDate(dueAt: Date, jurisdiction: Jurisdiction): Date {
  return addPeriod(dueAt, jurisdiction.extension);
}

/** The end of the window to appeal a denial decided at `decidedAt`; undefined when the law gives no appeal. */
export function appealWindowEnd(decidedAt: Date, jurisdiction: Jurisdiction | undefined): Date | undefined {
  return jurisdiction?.appealDays === undefined ? undefined : addDays(decidedAt, jurisdiction.appealDays);
}

/** When an appeal received at `submittedAt` must be decided. */
export function appealDueDate(submittedAt: Date, jurisdiction: Jurisdiction): Date {
  return addDays(submittedAt, jurisdiction.appealResponseDays ?? jurisdiction.appealDays ?? 60);
}
