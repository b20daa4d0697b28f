// The public appeal page (/privacy-center/appeal/{token}), plain HTML without script like the rest of the
// privacy center: the decision's window, a statement form, and the page that confirms the appeal, in the
// visitor's language.
import { translate } from '../i18n/catalogue.ts';
import { formatDay } from '../i18n/dates.ts';
import { escapeHtml } from '../validation/html.ts';
import { inLanguage, wordsOf } from '../public-pages/words.ts';
import { layout } from './page.ts';
import type { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';

/** The longest statement an appeal takes. */
export const STATEMENT_MAX_LENGTH = 2000;

export const appealPath = (token: string) => `/privacy-center/appeal/${encodeURIComponent(token)}`;

export function renderAppealForm(
  settings: PrivacyCenterSettings,
  token: string,
  windowEndsAt: Date,
  problem?: { message: string; statement: string },
  language = 'en',
): string {
  const { say } = wordsOf(language);
  const body = `<h1>${say('appeal.title')}</h1>
<p>${say('appeal.intro', { until: formatDay(language, windowEndsAt) })}</p>
${problem ? `<p class="problem" role="alert" id="appeal-problem">${escapeHtml(problem.message)}</p>` : ''}
<form method="post" action="${escapeHtml(inLanguage(appealPath(token), language))}">
<p class="field"><label for="statement">${say('appeal.statement_label')}</label>
<span class="hint" id="statement-hint">${say('appeal.statement_hint', { max: STATEMENT_MAX_LENGTH })}</span>
<textarea id="statement" name="statement" rows="8" maxlength="${STATEMENT_MAX_LENGTH}" required aria-describedby="statement-hint${problem ? ' appeal-problem' : ''}">${escapeHtml(problem?.statement ?? '')}</textarea></p>
<p><button type="submit">${say('appeal.send')}</button></p>
</form>`;
  return layout(translate(language, 'appeal.title'), settings, body, { language, path: appealPath(token) });
}

export function renderAppealReceived(
  settings: PrivacyCenterSettings,
  dueDate: Date,
  page: { language: string; path: string },
): string {
  const { say } = wordsOf(page.language);
  const body = `<h1>${say('appeal.received_title')}</h1>
<p role="status" id="appeal-received">${say('appeal.received_text', { due: formatDay(page.language, dueDate) })}</p>`;
  return layout(translate(page.language, 'appeal.received_title'), settings, body, page);
}
