// The respondent's page /respond/{token}, rendered on the server as one plain HTML form, without script,
// through the public pages' kit (src/public-pages/), in the privacy center's style and under its
// Content-Security-Policy: the task's instructions and one
// labelled field per field of its system. Of the data subject it shows only the identifiers the system
// names (its `identities`: what the person answering needs to find the record), nothing else. Its own words
// are in the visitor's language (src/i18n/); the instructions are the operator's in the request's language
// (the system's `translations`), else as written; the field labels are the operator's, as written.
import type { MessageKey } from '../i18n/catalogue.ts';
import { translate } from '../i18n/catalogue.ts';
import { translatedText } from '../i18n/operator-texts.ts';
import { languageSwitcher, type PageContext, wordsOf } from '../public-pages/words.ts';
import { escapeHtml } from '../validation/html.ts';
import { layout as pageLayout } from '../public-pages/layout.ts';
import type { TaskRow } from './repository.ts';
import type { Identifier } from './respondent.ts';
import { MAX_VALUE_LENGTH } from './schemas.ts';

export const respondentPath = (token: string) => `/respond/${encodeURIComponent(token)}`;

/** A respondent's page: the kit's frame with the language switcher and no link to the privacy center. */
function layout(title: string, organization: string, body: string, page: PageContext): string {
  return pageLayout(title, { organization, lang: page.language, navigation: languageSwitcher(page) }, body);
}

const IDENTIFIER_NAMES: Record<string, MessageKey> = {
  email: 'identifier.email',
  phone_number: 'identifier.phone_number',
};

function renderIdentifiers(identifiers: readonly Identifier[], say: (key: MessageKey) => string): string {
  if (identifiers.length === 0) return '';
  const rows = identifiers
    .map((identifier) => {
      const name = IDENTIFIER_NAMES[identifier.kind];
      return `<dt>${name ? say(name) : escapeHtml(identifier.kind)}</dt><dd>${escapeHtml(identifier.value)}</dd>`;
    })
    .join('');
  return `<section class="action" aria-labelledby="whose"><h2 id="whose">${say('respondent.whose')}</h2><dl>${rows}</dl></section>`;
}

/**
 * The task's instructions in the request's language (`instructionsIn.language`) when the system gave them
 * in it, else as written (in the default language, `instructionsIn.fallback`); marked with the language they
 * are in, which need not be the page's.
 */
function renderInstructions(
  task: Pick<TaskRow, 'instructions' | 'translations'>,
  say: (key: MessageKey) => string,
  instructionsIn: { language: string; fallback: string } | undefined,
): string {
  const translated = instructionsIn
    ? translatedText(task.instructions, task.translations, instructionsIn.language, 'instructions')
    : task.instructions;
  if (!translated) return '';
  const inLanguage = !instructionsIn
    ? undefined
    : translated === task.instructions
      ? instructionsIn.fallback
      : instructionsIn.language;
  const lang = inLanguage ? ` lang="${escapeHtml(inLanguage)}"` : '';
  return `<section class="action" aria-labelledby="instructions"><h2 id="instructions">${say('respondent.instructions')}</h2><p${lang}>${escapeHtml(translated).replaceAll('\n', '<br>')}</p></section>`;
}

export function renderRespondentForm(
  organization: string,
  task: TaskRow,
  token: string,
  identifiers: readonly Identifier[] = [],
  language = 'en',
  instructionsIn?: { language: string; fallback: string },
): string {
  const { say, markup } = wordsOf(language);
  const fields = task.fields
    .map(
      (
        field,
      ) => `<p class="field"><label for="field-${escapeHtml(field.name)}">${escapeHtml(field.label)}</label>
<textarea id="field-${escapeHtml(field.name)}" name="${escapeHtml(field.name)}" rows="3" maxlength="${MAX_VALUE_LENGTH}"></textarea></p>`,
    )
    .join('\n');
  const verb = say(task.action === 'erasure' ? 'respondent.confirm_erasure' : 'respondent.send');
  return layout(
    translate(language, 'respondent.page_title', { organization }),
    organization,
    `<h1>${say('respondent.title')}</h1>
<p>${markup('respondent.asks', { system: `<strong>${escapeHtml(task.system_name)}</strong>` }, { organization })}</p>
${renderIdentifiers(identifiers, say)}
${renderInstructions(task, say, instructionsIn)}
<form method="post" action="${escapeHtml(`${respondentPath(token)}?lang=${encodeURIComponent(language)}`)}" class="action">
${fields}
<p><button type="submit">${verb}</button></p>
</form>
<p class="hint">${say('respondent.once')}</p>`,
    { language, path: respondentPath(token) },
  );
}

const ENDINGS = {
  done: ['respondent.done.title', 'respondent.done.text'],
  used: ['respondent.used.title', 'respondent.used.text'],
  expired: ['respondent.expired.title', 'respondent.expired.text'],
  answered: ['respondent.answered.title', 'respondent.answered.text'],
  unknown: ['respondent.unknown.title', 'respondent.unknown.text'],
  cross_site: ['respondent.cross_site.title', 'respondent.cross_site.text'],
  too_long: ['respondent.too_long.title', 'respondent.too_long.text'],
} as const satisfies Record<string, readonly [MessageKey, MessageKey]>;

export function renderRespondentEnding(
  organization: string,
  kind: keyof typeof ENDINGS,
  page: PageContext = { language: 'en', path: '/privacy-center' },
): string {
  const { say } = wordsOf(page.language);
  const [heading, text] = ENDINGS[kind];
  return layout(
    translate(page.language, heading),
    organization,
    `<h1>${say(heading)}</h1><p role="${kind === 'done' ? 'status' : 'alert'}">${say(text, { max: MAX_VALUE_LENGTH })}</p>`,
    page,
  );
}
