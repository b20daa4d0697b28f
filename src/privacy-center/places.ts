// The places a person can say they live in, as the privacy center's form offers them: every ISO 3166-1
// country named in the page's language by Intl.DisplayNames (the names ship with Node, in every language
// Lethe speaks), and the United States' subdivisions by their official names, which are proper nouns and
// written as such in every language, with their ISO 3166-2 code beside them. The codes come from the
// deadlines' own lists (src/deadlines/locations.ts), so the form offers exactly what a request accepts.
import { countryCodes, usSubdivisionCodes } from '../deadlines/locations.ts';

const US_NAMES: Readonly<Record<string, string>> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  DC: 'District of Columbia',
  AS: 'American Samoa',
  GU: 'Guam',
  MP: 'Northern Mariana Islands',
  PR: 'Puerto Rico',
  UM: 'United States Minor Outlying Islands',
  VI: 'U.S. Virgin Islands',
};

export interface Place {
  code: string;
  name: string;
}

const countriesByLanguage = new Map<string, readonly Place[]>();

/** Every country, named in `language` and sorted as a reader of it sorts. */
export function countriesIn(language: string): readonly Place[] {
  let places = countriesByLanguage.get(language);
  if (!places) {
    const names = new Intl.DisplayNames([language], { type: 'region', fallback: 'code' });
    const collator = new Intl.Collator(language);
    places = countryCodes()
      .map((code) => ({ code, name: names.of(code) ?? code }))
      .sort((a, b) => collator.compare(a.name, b.name));
    countriesByLanguage.set(language, places);
  }
  return places;
}

/** The United States' states, district and outlying areas, by name, with the code after `US-`. */
export function usStates(): readonly Place[] {
  return usSubdivisionCodes()
    .map((code) => ({ code, name: US_NAMES[code] ?? code }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en'));
}

/**
 * The request's location from the form's two fields: the state makes `US-XX` (with the United States or
 * no country chosen); a state with another country is a contradiction the caller refuses; neither: null.
 */
export function locationFromForm(
  country: string | undefined,
  state: string | undefined,
): { location: string | null } | { contradiction: true } {
  const chosenCountry = country?.trim().toUpperCase() || '';
  const chosenState = state?.trim().toUpperCase() || '';
  if (chosenState && chosenCountry && chosenCountry !== 'US') return { contradiction: true };
  if (chosenState) return { location: `US-${chosenState}` };
  return { location: chosenCountry || null };
}
