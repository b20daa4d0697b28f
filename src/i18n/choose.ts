// Which language a visitor reads: `?lang=` on a public page, else the browser's Accept-Language, else
// LETHE_DEFAULT_LANGUAGE. Only a language with a catalogue is ever chosen: any other value (long, a path,
// markup) is ignored, never echoed back, so it cannot reach a page or an error.
import { isLanguage } from './catalogue.ts';

/** Longer than any language tag worth reading (BCP 47 allows 35 characters for the usual ones). */
const MAX_TAG_LENGTH = 35;
/** An Accept-Language header is read this far; a browser sends a few dozen characters. */
const MAX_HEADER_LENGTH = 512;

/** The catalogue's language for a tag such as `de`, `de-AT` or `PT-br`, if there is one. */
function languageOfTag(tag: string): string | undefined {
  const trimmed = tag.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_TAG_LENGTH) return undefined;
  const primary = trimmed.split('-', 1)[0]?.toLowerCase() ?? '';
  return isLanguage(primary) ? primary : undefined;
}

/** The most preferred language of an Accept-Language header that has a catalogue (RFC 9110 §12.5.4). */
export function languageOfAcceptLanguage(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const ranked = header
    .slice(0, MAX_HEADER_LENGTH)
    .split(',')
    .map((entry, position) => {
      const [tag = '', ...parameters] = entry.split(';');
      const weight = parameters
        .map((parameter) => parameter.trim())
        .find((parameter) => parameter.startsWith('q='));
      const quality = weight === undefined ? 1 : Number(weight.slice(2));
      return { language: languageOfTag(tag), quality: Number.isFinite(quality) ? quality : 0, position };
    })
    .filter((entry) => entry.language !== undefined && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.position - b.position);
  return ranked[0]?.language;
}

export function chooseLanguage(
  chosen: { query?: unknown; acceptLanguage?: string | undefined },
  defaultLanguage: string,
): string {
  return (
    (typeof chosen.query === 'string' ? languageOfTag(chosen.query) : undefined) ??
    languageOfAcceptLanguage(chosen.acceptLanguage) ??
    defaultLanguage
  );
}
