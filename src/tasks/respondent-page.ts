// The respondent's page /respond/{token}, rendered on the server as one plain HTML form, without script,
// through the public pages' kit (src/public-pages/), in the privacy center's style and under its
// Content-Security-Policy: the task's instructions and one labelled field per field of its system. It
// shows nothing of the data subject.
import { escapeHtml } from '../validation/html.ts';
import { layout, plainFrame } from '../public-pages/layout.ts';
import type { TaskRow } from './repository.ts';
import { MAX_VALUE_LENGTH } from './schemas.ts';

export function renderRespondentForm(organization: string, task: TaskRow, token: string): string {
  const fields = task.fields
    .map(
      (
        field,
      ) => `<p class="field"><label for="field-${escapeHtml(field.name)}">${escapeHtml(field.label)}</label>
<textarea id="field-${escapeHtml(field.name)}" name="${escapeHtml(field.name)}" rows="3" maxlength="${MAX_VALUE_LENGTH}"></textarea></p>`,
    )
    .join('\n');
  const verb = task.action === 'erasure' ? 'Confirm the erasure' : 'Send the answer';
  return layout(
    `A question from ${organization}`,
    plainFrame(organization),
    `<h1>A question about a privacy request</h1>
<p>${escapeHtml(organization)} handles a privacy request and asks for your help with <strong>${escapeHtml(task.system_name)}</strong>.</p>
${task.instructions ? `<section class="action" aria-labelledby="instructions"><h2 id="instructions">Instructions</h2><p>${escapeHtml(task.instructions).replaceAll('\n', '<br>')}</p></section>` : ''}
<form method="post" action="/respond/${escapeHtml(token)}" class="action">
${fields}
<p><button type="submit">${verb}</button></p>
</form>
<p class="hint">This link works once. After you send the answer it cannot be changed here.</p>`,
  );
}

const ENDINGS = {
  done: ['Thank you', 'Your answer was received. You can close this page.'],
  used: ['This link was already used', 'An answer was already sent through this link; nothing was changed.'],
  expired: [
    'This link has expired',
    'Ask the organisation that sent it for a new link; nothing was changed.',
  ],
  answered: ['Already answered', 'This question was already answered by someone else; nothing was changed.'],
  unknown: ['Link not found', 'This link is not known. Check that you copied all of it.'],
  cross_site: ['Refused', 'Answers are taken from this page itself only; nothing was changed.'],
  too_long: ['Answer too long', 'Each answer may hold at most 10,000 characters; nothing was changed.'],
} as const;

export function renderRespondentEnding(organization: string, kind: keyof typeof ENDINGS): string {
  const [heading, text] = ENDINGS[kind];
  return layout(
    heading,
    plainFrame(organization),
    `<h1>${heading}</h1><p role="${kind === 'done' ? 'status' : 'alert'}">${text}</p>`,
  );
}
