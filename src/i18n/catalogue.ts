// The words of every surface a data subject sees, in every language Lethe speaks: one ICU MessageFormat
// catalogue per language under catalogues/ (`<language>.json`, found when the module loads, so adding a
// language is adding one file), English's the reference every other must match key for key and
// placeholder for placeholder (test/i18n/catalogues.test.ts). Formatting goes through intl-messageformat,
// which picks each language's plural rules and number forms. Nothing here knows HTTP or the database.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';

// The keys are English's, as the type checker reads them from the JSON: a key no catalogue has does not
// compile. (A type-only import statement cannot carry the JSON import attribute NodeNext requires.)
// eslint-disable-next-line @typescript-eslint/consistent-type-imports
export type MessageKey = keyof typeof import('./catalogues/en.json', { with: { type: 'json' } });
export type MessageValues = Record<string, string | number>;
export type Catalogue = Readonly<Record<MessageKey, string>>;

/** The language every catalogue is checked against, and the last resort of a missing operator text. */
export const REFERENCE_LANGUAGE = 'en';

const CATALOGUE_DIR = path.join(import.meta.dirname, 'catalogues');
const LANGUAGE_FILE = /^([a-z]{2,3})\.json$/;

function loadCatalogues(): ReadonlyMap<string, Catalogue> {
  const found = new Map<string, Catalogue>();
  for (const file of readdirSync(CATALOGUE_DIR).sort()) {
    const language = LANGUAGE_FILE.exec(file)?.[1];
    if (language)
      found.set(language, JSON.parse(readFileSync(path.join(CATALOGUE_DIR, file), 'utf8')) as Catalogue);
  }
  if (!found.has(REFERENCE_LANGUAGE)) throw new Error(`the ${REFERENCE_LANGUAGE}.json catalogue is missing`);
  return found;
}

const CATALOGUES = loadCatalogues();

/** Every language with a catalogue, English first, then in the order of their codes. */
export const LANGUAGES: readonly string[] = [
  REFERENCE_LANGUAGE,
  ...[...CATALOGUES.keys()].filter((language) => language !== REFERENCE_LANGUAGE),
];

export function isLanguage(value: unknown): value is string {
  return typeof value === 'string' && CATALOGUES.has(value);
}

/** The catalogue of `language` as written (for the tests that compare them). */
export function catalogueOf(language: string): Readonly<Record<string, string>> {
  const catalogue = CATALOGUES.get(language);
  if (!catalogue) throw new Error(`no catalogue for language ${language}`);
  return catalogue;
}

export function isMessageKey(value: string): value is MessageKey {
  return Object.hasOwn(catalogueOf(REFERENCE_LANGUAGE), value);
}

const compiled = new Map<string, IntlMessageFormat>();

function formatOf(language: string, key: MessageKey): IntlMessageFormat {
  const id = `${language}\u0000${key}`;
  let format = compiled.get(id);
  if (!format) {
    // A key missing in a language is caught by the catalogue test; at run time it reads English's.
    const source = CATALOGUES.get(language)?.[key] ?? catalogueOf(REFERENCE_LANGUAGE)[key as string];
    if (source === undefined) throw new Error(`no message ${key}`);
    format = new IntlMessageFormat(source, language === 'en' ? 'en' : [language, REFERENCE_LANGUAGE]);
    compiled.set(id, format);
  }
  return format;
}

/** The message `key` in `language`, its placeholders filled with `values` (plain text: escape it for HTML). */
export function translate(language: string, key: MessageKey, values: MessageValues = {}): string {
  return String(formatOf(language, key).format(values));
}

/**
 * Placeholder names of a message, for the catalogue test: every language must use the same ones as
 * English, or a value would be lost or a brace shown.
 */
export function placeholdersOf(language: string, key: MessageKey): string[] {
  const names = new Set<string>();
  const walk = (elements: readonly unknown[]) => {
    for (const element of elements as {
      type: number;
      value?: string;
      options?: Record<string, { value: unknown[] }>;
    }[]) {
      if (element.type !== 0 && element.type !== 7 && typeof element.value === 'string')
        names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(formatOf(language, key).getAst());
  return [...names].sort();
}
