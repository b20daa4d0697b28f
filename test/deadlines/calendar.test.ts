// The law's clock against the statutes' own words, for every built-in jurisdiction and receipts that trap a
// UTC clock (month ends, leap days, daylight-saving changes, Sunday evenings, local midnights): each expected
// deadline is the end of the last local day, counted here from the statute's text (the table below) by
// test/helpers/statute-days.ts, never by Lethe's code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  acknowledgeDueDate,
  appealDueDate,
  appealWindowEnd,
  daysLeft,
  dueDateOf,
  extendedDueDate,
  extensionRefusal,
  jurisdictionOf,
  optOutDueDate,
  statutoryDueDate,
  timeZoneOf,
} from '../../src/deadlines/clock.ts';
import { JURISDICTIONS, jurisdictionByCode } from '../../src/deadlines/jurisdictions.ts';
import { readLocation } from '../../src/deadlines/locations.ts';
import {
  endOfLocalDay,
  type LocalDay,
  localDayOf,
  plusBusinessDays,
  plusDays,
  plusMonths,
} from '../helpers/statute-days.ts';

const at = (text: string) => new Date(text);
const iso = (date: Date) => date.toISOString();

type Count = { days: number } | { months: number };
interface StatuteRule {
  /** The words of the statute: "within 45 days", "within one month", and the one extension. */
  response: Count;
  extension?: Count;
  /** The zone whose local days end first where the place spans several. */
  zone: string;
}

/** The statutes, read for this test (docs/deadlines.md cites each section). */
const STATUTES: Record<string, StatuteRule> = {
  EU: { response: { months: 1 }, extension: { months: 2 }, zone: 'Indian/Reunion' },
  EEA: { response: { months: 1 }, extension: { months: 2 }, zone: 'Europe/Oslo' },
  UK: { response: { months: 1 }, extension: { months: 2 }, zone: 'Europe/London' },
  CH: { response: { days: 30 }, zone: 'Europe/Zurich' },
  BR: { response: { days: 15 }, zone: 'America/Noronha' },
  'CA-QC': { response: { days: 30 }, zone: 'America/Halifax' },
  'US-CA': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Los_Angeles' },
  'US-VA': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-CO': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Denver' },
  'US-CT': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-UT': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Denver' },
  'US-TX': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Chicago' },
  'US-OR': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Boise' },
  'US-MT': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Denver' },
  'US-IA': { response: { days: 90 }, extension: { days: 45 }, zone: 'America/Chicago' },
  'US-DE': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-NE': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Chicago' },
  'US-NH': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-NJ': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-TN': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-MN': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Chicago' },
  'US-MD': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-IN': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/Indiana/Indianapolis' },
  'US-KY': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
  'US-RI': { response: { days: 45 }, extension: { days: 45 }, zone: 'America/New_York' },
};

/** Locations whose own zone counts: a country, an outermost region, an island group. */
const LOCATIONS: Record<string, { code: string; zone: string }> = {
  FR: { code: 'EU', zone: 'Europe/Paris' },
  RE: { code: 'EU', zone: 'Indian/Reunion' },
  GP: { code: 'EU', zone: 'America/Guadeloupe' },
  GF: { code: 'EU', zone: 'America/Cayenne' },
  MQ: { code: 'EU', zone: 'America/Martinique' },
  YT: { code: 'EU', zone: 'Indian/Mayotte' },
  MF: { code: 'EU', zone: 'America/Marigot' },
  AX: { code: 'EU', zone: 'Europe/Mariehamn' },
  'PT-20': { code: 'EU', zone: 'Atlantic/Azores' },
  'PT-30': { code: 'EU', zone: 'Atlantic/Madeira' },
  'ES-CN': { code: 'EU', zone: 'Atlantic/Canary' },
  FI: { code: 'EU', zone: 'Europe/Helsinki' },
  NO: { code: 'EEA', zone: 'Europe/Oslo' },
  IS: { code: 'EEA', zone: 'Atlantic/Reykjavik' },
  GB: { code: 'UK', zone: 'Europe/London' },
  CH: { code: 'CH', zone: 'Europe/Zurich' },
};

/** Receipts that trap a UTC clock. */
const RECEIPTS = [
  '2026-01-31T23:30:00Z', // month end, already 1 February east of London
  '2026-03-30T22:30:00Z', // 00:30 on 31 March in Paris (summer time): a month to 30 April
  '2028-01-31T07:30:00Z', // 31 January: one month is the leap day
  '2028-02-29T12:00:00Z', // the leap day itself
  '2026-03-08T09:30:00Z', // 01:30 in California, half an hour before spring forward
  '2026-03-29T00:30:00Z', // the night Europe moves its clocks forward
  '2026-10-25T00:30:00Z', // the night Europe moves them back
  '2026-11-01T08:30:00Z', // 01:30 in California during the repeated hour
  '2026-11-30T03:00:00Z', // Sunday 29 November, 19:00 in California
  '2026-12-31T23:59:59.999Z', // the year's last instant in UTC
];

const plus = (day: LocalDay, count: Count) =>
  'days' in count ? plusDays(day, count.days) : plusMonths(day, count.months);

function expectedDeadline(received: Date, count: Count, zone: string): Date {
  return endOfLocalDay(plus(localDayOf(received, zone), count), zone);
}

describe('every jurisdiction against its statute', () => {
  it('has a rule for every law in the statute table, and nothing else', () => {
    assert.deepEqual(JURISDICTIONS.map((rule) => rule.code).sort(), Object.keys(STATUTES).sort());
  });

  for (const [code, statute] of Object.entries(STATUTES)) {
    it(`${code}: ends at the end of the last local day, and the extension moves it by the statute`, () => {
      const rule = jurisdictionByCode(code);
      assert.ok(rule, code);
      const zone = timeZoneOf(null, code);
      assert.equal(zone, statute.zone);
      for (const receipt of RECEIPTS) {
        const received = at(receipt);
        const due = statutoryDueDate(received, rule, zone);
        const expected = expectedDeadline(received, statute.response, statute.zone);
        assert.equal(iso(due), iso(expected), `${code} received ${receipt}`);
        if (statute.extension) {
          assert.equal(
            iso(extendedDueDate(due, rule, zone)),
            iso(expectedDeadline(expected, statute.extension, statute.zone)),
            `${code} extended, received ${receipt}`,
          );
        } else {
          assert.equal(rule.extension, undefined, `${code} gives no extension`);
        }
      }
    });
  }

  for (const [location, expected] of Object.entries(LOCATIONS)) {
    it(`${location}: falls under ${expected.code} and counts its own local days`, () => {
      assert.equal(jurisdictionOf(location, null), expected.code);
      const zone = timeZoneOf(location, expected.code);
      assert.equal(zone, expected.zone);
      const rule = jurisdictionByCode(expected.code);
      assert.ok(rule);
      const statute = STATUTES[expected.code];
      assert.ok(statute);
      for (const receipt of RECEIPTS) {
        const received = at(receipt);
        assert.equal(
          iso(statutoryDueDate(received, rule, zone)),
          iso(expectedDeadline(received, statute.response, expected.zone)),
          `${location} received ${receipt}`,
        );
      }
    });
  }

  it('counts business days in the zone: a Sunday-evening California opt-out and its acknowledgement', () => {
    const zone = 'America/Los_Angeles';
    for (const receipt of RECEIPTS) {
      const received = at(receipt);
      const receiptDay = localDayOf(received, zone);
      assert.equal(
        iso(optOutDueDate(received, zone)),
        iso(endOfLocalDay(plusBusinessDays(receiptDay, 15), zone)),
        `opt-out received ${receipt}`,
      );
      assert.equal(
        iso(acknowledgeDueDate(received, 'US-CA', zone) as Date),
        iso(endOfLocalDay(plusBusinessDays(receiptDay, 10), zone)),
        `acknowledgement of ${receipt}`,
      );
    }
    // Spelled out once: Sunday 29 November 2026, 19:00 in California. The 15th weekday after it is Friday
    // 18 December; its end, 23:59:59.999 PST, is 07:59:59.999 UTC on 19 December.
    assert.equal(iso(optOutDueDate(at('2026-11-30T03:00:00Z'), zone)), '2026-12-19T07:59:59.999Z');
    assert.equal(acknowledgeDueDate(at('2026-11-30T03:00:00Z'), 'EU', 'Europe/Paris'), null);
  });

  it('spells out a month-end receipt after local midnight in Paris: due at the end of 30 April, Paris time', () => {
    // 00:30 on 31 March 2026 in Paris (22:30 UTC on the 30th); one month: 30 April, ending 23:59:59.999 CEST.
    const eu = jurisdictionByCode('EU');
    assert.ok(eu);
    assert.equal(
      iso(statutoryDueDate(at('2026-03-30T22:30:00Z'), eu, 'Europe/Paris')),
      '2026-04-30T21:59:59.999Z',
    );
  });
});

describe('jurisdictions and due dates', () => {
  it('reads ISO 3166 locations: a state without a law falls under no other state’s', () => {
    assert.deepEqual(readLocation('FR'), { known: true, jurisdiction: 'EU' });
    assert.deepEqual(readLocation('RE'), { known: true, jurisdiction: 'EU' });
    assert.deepEqual(readLocation('AX'), { known: true, jurisdiction: 'EU' });
    assert.deepEqual(readLocation('NO'), { known: true, jurisdiction: 'EEA' });
    assert.deepEqual(readLocation('GB-SCT'), { known: true, jurisdiction: 'UK' });
    assert.deepEqual(readLocation('CA-QC'), { known: true, jurisdiction: 'CA-QC' });
    assert.deepEqual(readLocation('CA-ON'), { known: true, jurisdiction: null });
    assert.deepEqual(readLocation('US-TX'), { known: true, jurisdiction: 'US-TX' });
    assert.deepEqual(readLocation('US-FL'), { known: true, jurisdiction: null });
    assert.deepEqual(readLocation('JP'), { known: true, jurisdiction: null });
    for (const unknown of ['XX', 'US-ZZ', 'fr', 'France', 'EU-FR', '']) {
      assert.deepEqual(readLocation(unknown), { known: false }, unknown);
    }
    assert.equal(jurisdictionOf('FR', 'US-CA'), 'EU', 'the location comes first');
    assert.equal(jurisdictionOf('US-TX', 'US-CA'), 'US-TX', 'a Texas request takes Texas’s rule');
    assert.equal(jurisdictionOf('US-FL', 'US-CA'), null, 'never another state’s law');
    assert.equal(jurisdictionOf('US-FL', 'EU'), 'EU', 'a law that binds the controller still does');
    assert.equal(jurisdictionOf(null, 'UK'), 'UK');
    assert.equal(jurisdictionOf(null, null), null);
  });

  it('is the earlier of the statutory deadline and the policy timeframe, each to the end of a local day', () => {
    const received = at('2026-01-31T10:00:00Z');
    const zone = 'Europe/Paris';
    const day = localDayOf(received, zone);
    assert.equal(iso(dueDateOf(received, 'EU', 45, zone)), iso(endOfLocalDay(plusMonths(day, 1), zone)));
    assert.equal(iso(dueDateOf(received, 'EU', 20, zone)), iso(endOfLocalDay(plusDays(day, 20), zone)));
    assert.equal(iso(dueDateOf(received, null, 60, 'UTC')), '2026-04-01T23:59:59.999Z');
  });

  it('never extends an opt-out, and says why not otherwise', () => {
    const open = {
      closed: false,
      jurisdiction: 'EU',
      extendedAt: null,
      dueAt: at('2026-02-28T22:59:59.999Z'),
      optOut: false,
    };
    const now = at('2026-02-10T00:00:00Z');
    assert.equal(extensionRefusal(open, now), undefined);
    assert.match(extensionRefusal({ ...open, optOut: true }, now) ?? '', /opt-out .* never extended .*7026/);
    assert.match(extensionRefusal({ ...open, jurisdiction: 'US-CA', optOut: true }, now) ?? '', /7026/);
    assert.match(extensionRefusal({ ...open, closed: true }, now) ?? '', /closed/);
    assert.match(extensionRefusal({ ...open, jurisdiction: null }, now) ?? '', /no jurisdiction/);
    assert.match(extensionRefusal({ ...open, jurisdiction: 'BR' }, now) ?? '', /gives no extension/);
    assert.match(extensionRefusal({ ...open, extendedAt: now }, now) ?? '', /already extended/);
    assert.equal(
      extensionRefusal(open, at('2026-02-28T22:59:59.999Z')),
      undefined,
      'the last instant still counts',
    );
    assert.match(extensionRefusal(open, at('2026-02-28T23:00:00Z')) ?? '', /past its due date/);
  });

  it('freezes days left once closed, and ends appeal windows at the end of their last local day', () => {
    const due = at('2026-03-01T00:00:00Z');
    assert.equal(daysLeft(due, null, at('2026-02-20T00:00:00Z')), 9);
    assert.equal(daysLeft(due, at('2026-02-20T00:00:00Z'), at('2026-06-01T00:00:00Z')), 9);
    const colorado = jurisdictionByCode('US-CO');
    const virginia = jurisdictionByCode('US-VA');
    assert.ok(colorado && virginia);
    const zone = 'America/Denver';
    assert.equal(
      appealWindowEnd(at('2026-01-01T00:00:00Z'), jurisdictionByCode('EU'), 'Europe/Paris'),
      undefined,
    );
    // Decided at 17:00 on 31 December 2025 in Denver: 45 days is 14 February, accepted to its last minute.
    const decided = at('2026-01-01T00:00:00Z');
    assert.equal(
      iso(appealWindowEnd(decided, colorado, zone) as Date),
      iso(endOfLocalDay({ year: 2026, month: 2, day: 14 }, zone)),
    );
    assert.equal(
      iso(appealDueDate(decided, virginia, 'America/New_York')),
      iso(endOfLocalDay(plusDays(localDayOf(decided, 'America/New_York'), 60), 'America/New_York')),
    );
  });

  it('cites an authority for every jurisdiction; appeals for every state law but California and Utah', () => {
    for (const jurisdiction of JURISDICTIONS) {
      assert.match(jurisdiction.authority.url, /^https:\/\//, jurisdiction.code);
      assert.ok(jurisdiction.citation.length > 0, jurisdiction.code);
      const hasAppeal =
        jurisdiction.code.startsWith('US-') && !['US-CA', 'US-UT'].includes(jurisdiction.code);
      assert.equal(jurisdiction.appealDays !== undefined, hasAppeal, jurisdiction.code);
      if (hasAppeal)
        assert.match(
          jurisdiction.authority.name,
          /Attorney General|Department of Justice|Division|Consumer Protection/,
        );
    }
    assert.equal(jurisdictionByCode('US-VA')?.citation, 'Va. Code §59.1-577');
    assert.equal(jurisdictionByCode('EU')?.judicialRemedy, true);
    assert.equal(jurisdictionByCode('UK')?.judicialRemedy, true);
  });
});
