// Which language a visitor reads, and dates in its words with the zone named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseLanguage, languageOfAcceptLanguage } from '../../src/i18n/choose.ts';
import { formatDay, formatInstant } from '../../src/i18n/dates.ts';

describe('chooseLanguage', () => {
  it('takes ?lang= first, then Accept-Language, then the default', () => {
    assert.equal(chooseLanguage({ query: 'de', acceptLanguage: 'fr' }, 'en'), 'de');
    assert.equal(chooseLanguage({ query: 'pt-BR' }, 'en'), 'pt');
    assert.equal(chooseLanguage({ acceptLanguage: 'fr-CH, fr;q=0.9, en;q=0.8' }, 'en'), 'fr');
    assert.equal(chooseLanguage({ acceptLanguage: 'ja, sv;q=0.5, nl;q=0.7' }, 'en'), 'nl');
    assert.equal(chooseLanguage({ acceptLanguage: 'ja, zh;q=0.9' }, 'it'), 'it');
    assert.equal(chooseLanguage({}, 'pl'), 'pl');
  });

  it('ignores a language refused with q=0 and a header that is not one', () => {
    assert.equal(languageOfAcceptLanguage('de;q=0, es;q=0.1'), 'es');
    assert.equal(languageOfAcceptLanguage('*'), undefined);
    assert.equal(languageOfAcceptLanguage(';;;,,,'), undefined);
  });

  it('ignores hostile values: long, a path, markup, an array', () => {
    for (const query of ['de'.repeat(100), '../../etc/passwd', '<script>alert(1)</script>', 'xx', ['de']])
      assert.equal(chooseLanguage({ query, acceptLanguage: undefined }, 'en'), 'en', String(query));
    assert.equal(chooseLanguage({ acceptLanguage: `${'x'.repeat(5000)}, de` }, 'en'), 'en');
  });
});

describe('dates', () => {
  const at = new Date('2026-12-29T03:45:00Z');
  it('writes a day in the language with its zone named', () => {
    assert.equal(formatDay('en', at), 'December 29, 2026 (UTC)');
    assert.equal(formatDay('de', at), '29. Dezember 2026 (UTC)');
    assert.equal(formatDay('fr', at), '29 décembre 2026 (UTC)');
    assert.equal(formatDay('pl', at), '29 grudnia 2026 (UTC)');
  });

  it('writes a moment in the language with its zone named', () => {
    assert.equal(formatInstant('en', at), 'December 29, 2026 at 3:45 AM UTC');
    assert.equal(formatInstant('de', at), '29. Dezember 2026 um 03:45 UTC');
    assert.match(formatInstant('de', at, 'Europe/Berlin'), /^29\. Dezember 2026 um 04:45 MEZ$/);
  });
});
