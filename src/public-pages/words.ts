// The public pages' words and languages: every page of the kit (layout.ts) speaks through the catalogue of
// src/i18n/ in the page's language, and offers the same page in every other language through plain links
// (no script). Values are escaped here; `markup` places HTML the caller built into a message.
import { LANGUAGES, type MessageKey, type MessageValues, translate } from '../i18n/catalogue.ts';
import { translateHtml } from '../i18n/html.ts';
import { escapeHtml } from '../validation/html.ts';

/** The page's language and its own address (without a query), where the language switcher points. */
export interface PageContext {
  language: string;
  path: string;
}

/** An address of a public page that opens in `language`. */
export function inLanguage(path: string, language: string): string {
  return `${path}?lang=${encodeURIComponent(language)}`;
}

/** The page's words: `say` escapes the catalogue's message for HTML; `markup` places HTML values in it. */
export function wordsOf(language: string) {
  return {
    say: (key: MessageKey, values?: MessageValues) => escapeHtml(translate(language, key, values)),
    markup: (key: MessageKey, markup: Record<string, string>, text?: MessageValues) =>
      translateHtml(language, key, { markup, ...(text ? { text } : {}) }),
  };
}

/** Links to the same page in every language, each named in its own language; no script. */
export function languageSwitcher(page: PageContext): string {
  const links = LANGUAGES.map((language) => {
    const current = language === page.language ? ' aria-current="true"' : '';
    return `<li><a href="${escapeHtml(inLanguage(page.path, language))}" lang="${language}" hreflang="${language}"${current}>${escapeHtml(translate(language, 'language.name'))}</a></li>`;
  });
  return `<nav class="languages" aria-label="${escapeHtml(translate(page.language, 'language.switcher'))}"><ul>${links.join('')}</ul></nav>`;
}
