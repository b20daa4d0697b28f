// The clock's arithmetic as the laws count it: calendar months ending on month ends and leap days,
// business days skipping weekends, due dates taken as the earlier of the law and the policy, and every
// instant in UTC whatever the offset a caller wrote it with.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addBusinessDays,
  addCalendarMonths,
  addDays,
  wholeDaysBetween,
} from '../../src/deadlines/calendar.ts';
import {
  appealDueDate,
  appealWindowEnd,
  daysLeft,
  dueDateOf,
  extendedDueDate,
  extensionRefusal,
  jurisdictionOf,
} from '../../src/deadlines/clock.ts';
import { JURISDICTIONS, jurisdictionByCode } from '../../src/deadlines/jurisdictions.ts';
import { readLocation } from '../../src/deadlines/locations.ts';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

describe('calendar months', () => {
  it('ends on the same day of the next month, or on its last day when it has none', () => {
    assert.equal(iso(addCalendarMonths(at('2026-01-15T09:30:00Z'), 1)), '2026-02-15T09:30:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2026-01-31T10:00:00Z'), 1)), '2026-02-28T10:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2028-01-31T10:00:00Z'), 1)), '2028-02-29T10:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2026-03-31T00:00:00Z'), 1)), '2026-04-30T00:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2026-08-31T23:59:59.999Z'), 1)), '2026-09-30T23:59:59.999Z');
  });

  it('crosses the year and counts a leap day only in leap years', () => {
    assert.equal(iso(addCalendarMonths(at('2026-12-31T12:00:00Z'), 2)), '2027-02-28T12:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2027-12-31T12:00:00Z'), 2)), '2028-02-29T12:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2100-01-29T00:00:00Z'), 1)), '2100-02-28T00:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2000-01-30T00:00:00Z'), 1)), '2000-02-29T00:00:00.000Z');
    assert.equal(iso(addCalendarMonths(at('2028-02-29T08:00:00Z'), 12)), '2029-02-28T08:00:00.000Z');
  });

  it('counts in UTC whatever offset the instant was written with', () => {
    // 23:30 on 31 January in New York is 04:30 on 1 February UTC: one month later is 1 March UTC.
    const newYorkEvening = at('2026-01-31T23:30:00-05:00');
    assert.equal(iso(newYorkEvening), '2026-02-01T04:30:00.000Z');
    assert.equal(iso(addCalendarMonths(newYorkEvening, 1)), '2026-03-01T04:30:00.000Z');
    // 00:30 on 1 March in Paris is still 28 February UTC.
    assert.equal(iso(addCalendarMonths(at('2026-03-01T00:30:00+01:00'), 1)), '2026-03-28T23:30:00.000Z');
    // Days are 24 hours in UTC, across a daylight-saving change in Europe (29 March 2026).
    assert.equal(iso(addDays(at('2026-03-28T12:00:00Z'), 2)), '2026-03-30T12:00:00.000Z');
  });
});

describe('business days', () => {
  it('skips Saturdays and Sundays and does not count the day of receipt', () => {
    // Friday 2 January 2026 + 10 business days = Friday 16 January.
    assert.equal(iso(addBusinessDays(at('2026-01-02T15:00:00Z'), 10)), '2026-01-16T15:00:00.000Z');
    // Saturday 3 January + 1 business day = Monday 5 January.
    assert.equal(iso(addBusinessDays(at('2026-01-03T09:00:00Z'), 1)), '2026-01-05T09:00:00.000Z');
    // Wednesday 25 February 2028 + 3 business days crosses the leap day: Monday 1 March.
    assert.equal(iso(addBusinessDays(at('2028-02-25T09:00:00Z'), 3)), '2028-03-01T09:00:00.000Z');
  });
});

describe('jurisdictions and due dates', () => {
  it('reads ISO 3166 locations: EU members to EU, US states to themselves, unknown codes refused', () => {
    assert.deepEqual(readLocation('FR'), { known: true, jurisdiction: 'EU' });
    assert.deepEqual(readLocation('GR'), { known: true, jurisdiction: 'EU' });
    assert.deepEqual(readLocation('NO'), { known: true, jurisdiction: 'EEA' });
    assert.deepEqual(readLocation('GB-SCT'), { known: true, jurisdiction: 'UK' });
    assert.deepEqual(readLocation('US-CA'), { known: true, jurisdiction: 'US-CA' });
    assert.deepEqual(readLocation('US-TX'), { known: true, jurisdiction: 'US-TX' });
    assert.deepEqual(readLocation('JP'), { known: true, jurisdiction: null });
    for (const unknown of ['XX', 'US-ZZ', 'fr', 'France', 'EU-FR', '']) {
      assert.deepEqual(readLocation(unknown), { known: false }, unknown);
    }
    assert.equal(jurisdictionOf('FR', 'US-CA'), 'EU', 'the location comes first');
    assert.equal(jurisdictionOf('US-TX', 'US-CO'), 'US-CO', 'a location without rules falls to the policy');
    assert.equal(jurisdictionOf(null, 'UK'), 'UK');
    assert.equal(jurisdictionOf(null, null), null);
  });

  it('is the earlier of the statutory deadline and the policy timeframe', () => {
    const received = at('2026-01-31T10:00:00Z');
    assert.equal(iso(dueDateOf(received, 'EU', 45)), '2026-02-28T10:00:00.000Z');
    assert.equal(iso(dueDateOf(received, 'EU', 20)), '2026-02-20T10:00:00.000Z');
    assert.equal(iso(dueDateOf(received, 'US-CA', 60)), '2026-03-17T10:00:00.000Z');
    assert.equal(iso(dueDateOf(received, null, 60)), '2026-04-01T10:00:00.000Z');
  });

  it('extends once, by the jurisdiction, and says why not otherwise', () => {
    const eu = jurisdictionByCode('EU');
    const ca = jurisdictionByCode('US-CA');
    assert.ok(eu && ca);
    assert.equal(iso(extendedDueDate(at('2026-02-28T10:00:00Z'), eu)), '2026-04-28T10:00:00.000Z');
    assert.equal(iso(extendedDueDate(at('2026-03-17T10:00:00Z'), ca)), '2026-05-01T10:00:00.000Z');
    const open = { closed: false, jurisdiction: 'EU', extendedAt: null, dueAt: at('2026-02-28T10:00:00Z') };
    const now = at('2026-02-10T00:00:00Z');
    assert.equal(extensionRefusal(open, now), undefined);
    assert.match(extensionRefusal({ ...open, closed: true }, now) ?? '', /closed/);
    assert.match(extensionRefusal({ ...open, jurisdiction: null }, now) ?? '', /no jurisdiction/);
    assert.match(extensionRefusal({ ...open, extendedAt: now }, now) ?? '', /already extended/);
    assert.match(extensionRefusal(open, at('2026-02-28T10:00:00Z')) ?? '', /past its due date/);
  });

  it('freezes days left once closed, and gives appeals their windows', () => {
    const due = at('2026-03-01T00:00:00Z');
    assert.equal(daysLeft(due, null, at('2026-02-20T00:00:00Z')), 9);
    assert.equal(daysLeft(due, at('2026-02-20T00:00:00Z'), at('2026-06-01T00:00:00Z')), 9);
    assert.equal(daysLeft(due, null, at('2026-03-03T00:00:00Z')), -2);
    const colorado = jurisdictionByCode('US-CO');
    assert.ok(colorado);
    assert.equal(appealWindowEnd(at('2026-01-01T00:00:00Z'), jurisdictionByCode('EU')), undefined);
    assert.equal(
      iso(appealWindowEnd(at('2026-01-01T00:00:00Z'), colorado) as Date),
      '2026-02-15T00:00:00.000Z',
    );
    assert.equal(iso(appealDueDate(at('2026-01-01T00:00:00Z'), colorado)), '2026-02-15T00:00:00.000Z');
    const virginia = jurisdictionByCode('US-VA');
    assert.ok(virginia);
    assert.equal(iso(appealDueDate(at('2026-01-01T00:00:00Z'), virginia)), '2026-03-02T00:00:00.000Z');
    assert.equal(wholeDaysBetween(at('2026-01-01T00:00:00Z'), at('2026-01-01T23:59:59Z')), 0);
  });

  it('cites an authority for every jurisdiction, and gives appeals only where the law does', () => {
    for (const jurisdiction of JURISDICTIONS) {
      assert.match(jurisdiction.authority.url, /^https:\/\//, jurisdiction.code);
      const hasAppeal = ['US-VA', 'US-CO', 'US-CT'].includes(jurisdiction.code);
      assert.equal(jurisdiction.appealDays !== undefined, hasAppeal, jurisdiction.code);
    }
  });
});
