// Texts operators write (the privacy center's title, an action's title and description) in other languages:
// `translations: {<language>: {<field>: text}}` beside the text itself, which is in LETHE_DEFAULT_LANGUAGE.
// A language needs a catalogue and a field must be one the text has; a missing translation reads the text
// as written, never an empty string.
import { isLanguage } from './catalogue.ts';

export type Translations = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Why `translations` cannot be stored (naming the language or field, at `where`), or undefined. */
export function translationsProblem(
  translations: Translations | undefined,
  fields: readonly string[],
  where: string,
): string | undefined {
  for (const [language, texts] of Object.entries(translations ?? {})) {
    const shown = JSON.stringify(language.slice(0, 40));
    if (!isLanguage(language))
      return `${where}.translations: ${shown} is not a language Lethe has a catalogue for.`;
    for (const field of Object.keys(texts))
      if (!fields.includes(field))
        return `${where}.translations.${language}: ${JSON.stringify(field.slice(0, 40))} is not a translatable text (${fields.join(', ')}).`;
  }
  return undefined;
}

/** `field`'s text in `language`, else the text as written. */
export function translatedText(
  written: string,
  translations: Translations | undefined,
  language: string,
  field: string,
): string {
  const text = translations?.[language]?.[field];
  return text && text.trim() !== '' ? text : written;
}
