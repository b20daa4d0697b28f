// A message of the outbox as GET /v1/outbox shows it to an operator: opened here, beside its key's owner
// (content.ts), so the route never holds the key. A delivered message has no body any more; for anyone but
// an owner the bodies' secrets (codes, links) are masked (body-mask.ts).
import type { Keyring } from '../crypto/keyring.ts';
import { maskBodySecrets } from './body-mask.ts';
import { openContent, purgedContent } from './content.ts';
import type { MessageRow } from './repository.ts';

/** `seesSecrets`: whether the reader sees the bodies' codes and links (seesOutboxSecrets). */
export function outboxMessageView(keyring: Keyring, row: MessageRow, seesSecrets: boolean) {
  const shown = (body: string | null) => (body === null || seesSecrets ? body : maskBodySecrets(body));
  const opened = openContent(keyring, row.id, row.content_sealed);
  // A message delivered before bodies were purged at delivery is shown as purged all the same.
  const content = row.state === 'sent' && opened.text !== null ? purgedContent(opened) : opened;
  return {
    id: row.id,
    privacy_request_id: row.privacy_request_id,
    kind: row.kind,
    state: row.state,
    to: content.to,
    subject: content.subject,
    text: shown(content.text),
    html: shown(content.html),
    body_purged: content.text === null,
    attempts: row.attempts,
    next_attempt_at: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
    last_error: row.last_error,
    created_at: row.created_at.toISOString(),
    sent_at: row.sent_at?.toISOString() ?? null,
  };
}
