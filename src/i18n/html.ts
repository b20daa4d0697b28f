// A translated sentence placed in HTML: the catalogue's words are escaped like any other text, and the
// values the caller gives as markup (a <code> or <strong> around an escaped value) are put in afterwards,
// so no translation can inject markup and no value is escaped twice.
import { escapeHtml } from '../validation/html.ts';
import { type MessageKey, type MessageValues, translate } from './catalogue.ts';

/** `text` values are plain (escaped here); `markup` values are HTML the caller has already escaped. */
export function translateHtml(
  language: string,
  key: MessageKey,
  values: { text?: MessageValues; markup?: Readonly<Record<string, string>> } = {},
): string {
  const markup = Object.entries(values.markup ?? {});
  // Each markup value stands in as a marker no catalogue or escaped value contains, then replaces it.
  const markers = Object.fromEntries(markup.map(([name], index) => [name, `\u0000${index}\u0000`]));
  const text = Object.fromEntries(
    Object.entries(values.text ?? {}).map(([name, value]) => [
      name,
      typeof value === 'string' ? value.replaceAll('\u0000', '') : value,
    ]),
  );
  let html = escapeHtml(translate(language, key, { ...text, ...markers }));
  for (const [index, [, value]] of markup.entries()) html = html.replace(`\u0000${index}\u0000`, value);
  return html;
}
