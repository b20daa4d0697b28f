// The public appeal page (/privacy-center/appeal/{token}), plain HTML without script like the rest of the
// privacy center (the public pages' kit): the decision's window, a statement form, and the page that
// confirms the appeal.
import { escapeHtml } from '../validation/html.ts';
import { problemNotice } from '../public-pages/forms.ts';
import { layout, privacyCenterFrame } from '../public-pages/layout.ts';
import type { PrivacyCenterSettings } from '../privacy-center-settings/schemas.ts';

/** The longest statement an appeal takes. */
export const STATEMENT_MAX_LENGTH = 2000;

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

export function renderAppealForm(
  settings: PrivacyCenterSettings,
  token: string,
  windowEndsAt: Date,
  problem?: { message: string; statement: string },
): string {
  const body = `<h1>Appeal our decision</h1>
<p>We declined your request. You may ask us to reconsider it until ${escapeHtml(dayOf(windowEndsAt))} (UTC). A person other than the one who declined it will decide, and we will tell you the outcome by email.</p>
${problem ? problemNotice(problem.message, 'appeal-problem') : ''}
<form method="post" action="/privacy-center/appeal/${encodeURIComponent(token)}">
<p class="field"><label for="statement">Why should we reconsider?</label>
<span class="hint" id="statement-hint">At most ${STATEMENT_MAX_LENGTH} characters.</span>
<textarea id="statement" name="statement" rows="8" maxlength="${STATEMENT_MAX_LENGTH}" required aria-describedby="statement-hint${problem ? ' appeal-problem' : ''}">${escapeHtml(problem?.statement ?? '')}</textarea></p>
<p><button type="submit">Send my appeal</button></p>
</form>`;
  return layout('Appeal our decision', privacyCenterFrame(settings), body);
}

export function renderAppealReceived(settings: PrivacyCenterSettings, dueDate: Date): string {
  const body = `<h1>We received your appeal</h1>
<p role="status" id="appeal-received">We will decide on your appeal by ${escapeHtml(dayOf(dueDate))} (UTC) and tell you by email.</p>`;
  return layout('We received your appeal', privacyCenterFrame(settings), body);
}
