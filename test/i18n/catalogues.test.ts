// Every language's catalogue against English's: the same keys, the same placeholders, each message valid
// ICU MessageFormat. A language that misses a key, adds one, or loses a placeholder fails here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  catalogueOf,
  LANGUAGES,
  type MessageKey,
  placeholdersOf,
  REFERENCE_LANGUAGE,
  translate,
} from '../../src/i18n/catalogue.ts';

const BUILT_IN = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv'];
const englishKeys = Object.keys(catalogueOf(REFERENCE_LANGUAGE)).sort() as MessageKey[];

describe('catalogues', () => {
  it('has the nine built-in languages, English first', () => {
    assert.deepEqual([...LANGUAGES].sort(), [...BUILT_IN].sort());
    assert.equal(LANGUAGES[0], 'en');
  });

  for (const language of BUILT_IN) {
    it(`${language} has exactly English's keys`, () => {
      const keys: string[] = Object.keys(catalogueOf(language)).sort();
      assert.deepEqual(
        englishKeys.filter((key) => !keys.includes(key)),
        [],
        `${language} misses these keys`,
      );
      assert.deepEqual(
        keys.filter((key) => !(englishKeys as string[]).includes(key)),
        [],
        `${language} has keys English does not`,
      );
    });

    it(`${language} uses English's placeholders in every message, and every message parses`, () => {
      for (const key of englishKeys) {
        const text = catalogueOf(language)[key];
        assert.ok(typeof text === 'string' && text.trim() !== '', `${language} ${key} is empty`);
        assert.deepEqual(
          placeholdersOf(language, key),
          placeholdersOf(REFERENCE_LANGUAGE, key),
          `${language} ${key}`,
        );
      }
    });

    it(`${language} names itself in its own words`, () => {
      const name = translate(language, 'language.name');
      assert.ok(name.length > 0);
      if (language !== REFERENCE_LANGUAGE) assert.notEqual(name, translate('en', 'language.name'));
    });
  }

  it('formats plurals by each language’s rules', () => {
    assert.equal(
      translate('en', 'mail.verification_code.lifetime', { minutes: 1 }).startsWith(
        'The code works for 1 minute.',
      ),
      true,
    );
    assert.match(translate('pl', 'refusal.code_wrong', { left: 2 }), /pozostały 2 próby/);
    assert.match(translate('pl', 'refusal.code_wrong', { left: 5 }), /pozostało 5 prób/);
    assert.match(translate('de', 'refusal.code_wrong', { left: 1 }), /noch 1 Versuch\b/);
  });
});
