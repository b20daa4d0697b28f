// Date arithmetic as the laws count it, on UTC instants (the request stores UTC; the clock never reads the
// server's time zone). A calendar month ends on the same day number of the next month, or on that month's
// last day when it has none (31 January + 1 month = 28 February, or 29 in a leap year), as GDPR art. 12(3)
// read with Regulation 1182/71 art. 3(2)(c) counts it. Business days are Monday to Friday; public holidays
// differ by state and are not counted out (docs/deadlines.md).

const DAY_MS = 86_400_000;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** `from` plus `months` calendar months, at the same UTC time of day; clamped to the target month's end. */
export function addCalendarMonths(from: Date, months: number): Date {
  const monthIndex = from.getUTCMonth() + months;
  const year = from.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const day = Math.min(from.getUTCDate(), daysInMonth(year, month));
  return new Date(
    Date.UTC(
      year,
      month,
      day,
      from.getUTCHours(),
      from.getUTCMinutes(),
      from.getUTCSeconds(),
      from.getUTCMilliseconds(),
    ),
  );
}

/** `from` plus `days` whole days of 24 hours (UTC has no daylight saving). */
export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * DAY_MS);
}

function isWeekend(at: Date): boolean {
  const weekday = at.getUTCDay();
  return weekday === 0 || weekday === 6;
}

/**
 * `from` plus `days` business days (Monday to Friday, UTC): the day of receipt does not count, each
 * following weekday does, Saturdays and Sundays are skipped.
 */
export function addBusinessDays(from: Date, days: number): Date {
  let at = from;
  let counted = 0;
  while (counted < days) {
    at = addDays(at, 1);
    if (!isWeekend(at)) counted += 1;
  }
  return at;
}

/** Whole days from `from` to `to`, rounded down (negative once `to` has passed). */
export function wholeDaysBetween(from: Date, to: Date): number {
  return Math.floor((to.getTime() - from.getTime()) / DAY_MS);
}
