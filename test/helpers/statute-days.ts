// The laws' periods counted the way their texts say, written apart from Lethe's code (which uses luxon):
// here the local calendar day comes from the platform's Intl time-zone data, calendar days and months are
// plain Y-M-D arithmetic, and a day's end is found from the zone's UTC offset. A test compares Lethe's
// deadline with this one, so a mistake must be made twice, in two ways, to pass unseen.

export interface LocalDay {
  year: number;
  month: number; // 1-12
  day: number;
}

/** The calendar day `at` falls on in `zone` (the day of receipt, which the periods do not count). */
export function localDayOf(at: Date, zone: string): LocalDay {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day') };
}

const asUtc = (day: LocalDay) => new Date(Date.UTC(day.year, day.month - 1, day.day));
const fromUtc = (date: Date): LocalDay => ({
  year: date.getUTCFullYear(),
  month: date.getUTCMonth() + 1,
  day: date.getUTCDate(),
});

/** "Within N days": the Nth calendar day after the day of receipt. */
export function plusDays(day: LocalDay, days: number): LocalDay {
  const date = asUtc(day);
  date.setUTCDate(date.getUTCDate() + days);
  return fromUtc(date);
}

/** "Within N months": the same day number N months later, or that month's last day when it has none. */
export function plusMonths(day: LocalDay, months: number): LocalDay {
  const index = day.month - 1 + months;
  const year = day.year + Math.floor(index / 12);
  const month = (index % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return { year, month, day: Math.min(day.day, last) };
}

/** "Within N business days": the Nth Monday-to-Friday after the day of receipt. */
export function plusBusinessDays(day: LocalDay, days: number): LocalDay {
  let current = day;
  let counted = 0;
  while (counted < days) {
    current = plusDays(current, 1);
    const weekday = asUtc(current).getUTCDay();
    if (weekday !== 0 && weekday !== 6) counted += 1;
  }
  return current;
}

/** Minutes `zone` is ahead of UTC at the instant `at`. */
function offsetMinutes(at: Date, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((candidate) => candidate.type === type)?.value);
  const wall = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The last millisecond of `day` in `zone` (23:59:59.999 local time), as an instant. */
export function endOfLocalDay(day: LocalDay, zone: string): Date {
  const wall = Date.UTC(day.year, day.month - 1, day.day, 23, 59, 59, 999);
  let guess = wall;
  for (let step = 0; step < 3; step += 1) guess = wall - offsetMinutes(new Date(guess), zone) * 60_000;
  return new Date(guess);
}

export const iso = (day: LocalDay) =>
  `${day.year}-${String(day.month).padStart(2, '0')}-${String(day.day).padStart(2, '0')}`;
