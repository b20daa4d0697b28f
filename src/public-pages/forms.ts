// The public pages' form pieces (layout.ts): the notices a form answers with, escaped here once. Their
// messages are the caller's (a domain error's sentence, or words through its frame's `text`).
import { escapeHtml } from '../validation/html.ts';

/** What went wrong with a form, read out at once by a screen reader (role alert). */
export function problemNotice(message: string, id?: string): string {
  return `<p class="problem" role="alert"${id ? ` id="${escapeHtml(id)}"` : ''}>${escapeHtml(message)}</p>`;
}

/** A notice of a page's state: a problem (alert) or information (status). */
export function notice(kind: 'problem' | 'info', message: string): string {
  return `<p class="${kind}" role="${kind === 'problem' ? 'alert' : 'status'}">${escapeHtml(message)}</p>`;
}
