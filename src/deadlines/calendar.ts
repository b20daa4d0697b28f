// Date arithmetic as the laws count it, in the local days of a time zone (luxon keeps the IANA rules,
// daylight saving included). A period starts on the local day of receipt and ends at the end of its last
// local day (Regulation 1182/71 art. 3(1)-(2): the day of the event does not count, a period ends with the
// last hour of its last day; Cal. Gov. Code §6800: the first day excluded, the last included). A calendar
// month ends on the same day number of the next month, or on that month's last day when it has none
// (31 January + 1 month = 28 February, or 29 in a leap year). Business days are Monday to Friday of that
// zone; public holidays differ by state and are not counted out, and a deadline is never moved forward
// over a weekend: Lethe's deadlines are never later than the law's (docs/deadlines.md).
import { DateTime, IANAZone } from 'luxon';

const DAY_MS = 86_400_000;

export function isTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

function localDay(at: Date, zone: string): DateTime {
  const local = DateTime.fromJSDate(at, { zone });
  if (!local.isValid) throw new Error(`unknown time zone ${zone}`);
  return local.startOf('day');
}

const endOf = (day: DateTime) => day.endOf('day').toJSDate();

/** The end of the local day `days` calendar days after the local day of `from`. */
export function endOfDaysAfter(from: Date, days: number, zone: string): Date {
  return endOf(localDay(from, zone).plus({ days }));
}

/** The end of the local day `months` calendar months after the local day of `from` (clamped to month ends). */
export function endOfMonthsAfter(from: Date, months: number, zone: string): Date {
  return endOf(localDay(from, zone).plus({ months }));
}

/**
 * The end of the `days`-th business day (Monday to Friday in `zone`) after the local day of `from`: the day
 * of receipt does not count, each following weekday does, Saturdays and Sundays are skipped.
 */
export function endOfBusinessDaysAfter(from: Date, days: number, zone: string): Date {
  let day = localDay(from, zone);
  let counted = 0;
  while (counted < days) {
    day = day.plus({ days: 1 });
    if (day.weekday <= 5) counted += 1;
  }
  return endOf(day);
}

/** The local calendar day of `at` in `zone` (YYYY-MM-DD), as a message to a person names a date. */
export function localDate(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toISODate() ?? at.toISOString().slice(0, 10);
}

/** `from` plus `days` whole days of 24 hours (for retention and TTLs, which no law counts in local days). */
export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

/** Whole days from `from` to `to`, rounded down (negative once `to` has passed). */
export function wholeDaysBetween(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / DAY_MS);
}
