// A request's `location` as ISO 3166: a country (ISO 3166-1 alpha-2, `FR`) or a subdivision (ISO 3166-2,
// `US-CA`), the jurisdiction it falls under and the time zone whose days it counts. Subdivisions are
// checked for the United States, whose states have their own laws (a state without one falls under none,
// never under another state's); elsewhere any 1 to 3 letters or digits after a known country are taken as
// given (the national law applies to them all).
import { isUsStateLaw, jurisdictionByCode } from './jurisdictions.ts';

/** ISO 3166-1 alpha-2, the officially assigned codes. */
const COUNTRIES = new Set(
  `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY
   BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK
   FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR
   IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK
   ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
   PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF
   TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`.split(
    /\s+/,
  ),
);

/**
 * The 27 member states of the European Union (Greece is GR in ISO 3166), and the parts of it that ISO 3166-1
 * codes apart: the outermost regions Guadeloupe, French Guiana, Martinique, Mayotte, Reunion and
 * Saint-Martin (art. 349 TFEU), and the Aland Islands (Protocol 2 of Finland's Act of Accession).
 */
const EU_MEMBERS = new Set(
  'AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE GP GF MQ YT RE MF AX'.split(
    ' ',
  ),
);
/** The EEA states outside the Union. */
const EEA_ONLY = new Set(['IS', 'LI', 'NO']);

/** ISO 3166-2:US: the states, the District of Columbia and the outlying areas. */
const US_SUBDIVISIONS = new Set(
  `AL AK AZ AR CA CO CT DE FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK
   OR PA RI SC SD TN TX UT VT VA WA WV WI WY DC AS GU MP PR UM VI`.split(/\s+/),
);

/** The countries a person may name (ISO 3166-1 alpha-2), for a form to offer. */
export function countryCodes(): readonly string[] {
  return [...COUNTRIES];
}

/** The United States' subdivisions (the part after `US-`), for a form to offer. */
export function usSubdivisionCodes(): readonly string[] {
  return [...US_SUBDIVISIONS];
}

const LOCATION_SHAPE = /^([A-Z]{2})(?:-([A-Z0-9]{1,3}))?$/;

/** The jurisdiction code of a known location, null when no built-in rule covers it. */
function jurisdictionCodeOf(country: string, subdivision: string | undefined): string | null {
  if (EU_MEMBERS.has(country)) return 'EU';
  if (EEA_ONLY.has(country)) return 'EEA';
  if (country === 'GB') return 'UK';
  if (country === 'CH' || country === 'BR') return country;
  if ((country === 'US' || country === 'CA') && subdivision)
    return jurisdictionByCode(`${country}-${subdivision}`)?.code ?? null;
  return null;
}

/**
 * The time zones of the places whose law counts in their own local days (IANA names): each European country
 * its own, and the territories of the Union that keep another. Elsewhere the rule's zone applies.
 */
const ZONES: Readonly<Record<string, string>> = {
  AT: 'Europe/Vienna',
  BE: 'Europe/Brussels',
  BG: 'Europe/Sofia',
  HR: 'Europe/Zagreb',
  CY: 'Asia/Nicosia',
  CZ: 'Europe/Prague',
  DK: 'Europe/Copenhagen',
  EE: 'Europe/Tallinn',
  FI: 'Europe/Helsinki',
  FR: 'Europe/Paris',
  DE: 'Europe/Berlin',
  GR: 'Europe/Athens',
  HU: 'Europe/Budapest',
  IE: 'Europe/Dublin',
  IT: 'Europe/Rome',
  LV: 'Europe/Riga',
  LT: 'Europe/Vilnius',
  LU: 'Europe/Luxembourg',
  MT: 'Europe/Malta',
  NL: 'Europe/Amsterdam',
  PL: 'Europe/Warsaw',
  PT: 'Europe/Lisbon',
  RO: 'Europe/Bucharest',
  SK: 'Europe/Bratislava',
  SI: 'Europe/Ljubljana',
  ES: 'Europe/Madrid',
  SE: 'Europe/Stockholm',
  GP: 'America/Guadeloupe',
  GF: 'America/Cayenne',
  MQ: 'America/Martinique',
  YT: 'Indian/Mayotte',
  RE: 'Indian/Reunion',
  MF: 'America/Marigot',
  AX: 'Europe/Mariehamn',
  'FR-971': 'America/Guadeloupe',
  'FR-972': 'America/Martinique',
  'FR-973': 'America/Cayenne',
  'FR-974': 'Indian/Reunion',
  'FR-976': 'Indian/Mayotte',
  'FR-GP': 'America/Guadeloupe',
  'FR-MQ': 'America/Martinique',
  'FR-GF': 'America/Cayenne',
  'FR-RE': 'Indian/Reunion',
  'FR-YT': 'Indian/Mayotte',
  'FR-MF': 'America/Marigot',
  'PT-20': 'Atlantic/Azores',
  'PT-30': 'Atlantic/Madeira',
  'ES-CN': 'Atlantic/Canary',
  IS: 'Atlantic/Reykjavik',
  LI: 'Europe/Vaduz',
  NO: 'Europe/Oslo',
  GB: 'Europe/London',
  CH: 'Europe/Zurich',
};

/**
 * The time zone whose local days a request's periods count: LETHE_TIME_ZONE when the installation set it
 * (`override`, config.deadlineTimeZone: one zone for every rule), else its location's own where Lethe knows
 * it, else its jurisdiction's, else UTC.
 */
export function timeZoneOf(
  location: string | null,
  jurisdictionCode: string | null,
  override: string | null = null,
): string {
  if (override !== null) return override;
  const jurisdiction = jurisdictionByCode(jurisdictionCode);
  if (location !== null && jurisdiction && jurisdictionOfLocation(location) === jurisdiction.code) {
    const zone = ZONES[location] ?? ZONES[location.slice(0, 2)];
    if (zone) return zone;
  }
  return jurisdiction?.timeZone ?? 'UTC';
}

function jurisdictionOfLocation(location: string): string | null {
  const reading = readLocation(location);
  return reading.known ? reading.jurisdiction : null;
}

/**
 * The jurisdiction of a request: its location's rule when the location has one. A location without a rule
 * falls to the policy's jurisdiction unless that is a US state's law, which protects only that state's
 * residents (a Texas request under a California policy takes Texas's rule, or none). Without a location, the
 * policy's.
 */
export function jurisdictionOf(location: string | null, policyJurisdiction: string | null): string | null {
  const policyRule = jurisdictionByCode(policyJurisdiction)?.code ?? null;
  if (location === null) return policyRule;
  const reading = readLocation(location);
  if (!reading.known) return policyRule;
  if (reading.jurisdiction !== null) return reading.jurisdiction;
  return policyRule !== null && !isUsStateLaw(policyRule) ? policyRule : null;
}

export type LocationReading = { known: true; jurisdiction: string | null } | { known: false };

/** Reads a location: unknown when it is no ISO 3166 code, else the jurisdiction it falls under (or none). */
export function readLocation(location: string): LocationReading {
  const match = LOCATION_SHAPE.exec(location);
  if (!match) return { known: false };
  const [, country, subdivision] = match as unknown as [string, string, string | undefined];
  if (!COUNTRIES.has(country)) return { known: false };
  if (country === 'US' && subdivision !== undefined && !US_SUBDIVISIONS.has(subdivision))
    return { known: false };
  return { known: true, jurisdiction: jurisdictionCodeOf(country, subdivision) };
}

/** The sentence refusing a location that is no ISO 3166 code; it names the value (a place, not a person). */
export function unknownLocationMessage(location: string): string {
  return `location ${JSON.stringify(location)} is not an ISO 3166 code (a country such as FR or a subdivision such as US-CA).`;
}
