// A message's content (recipient, subject, text and HTML bodies) sealed at rest: bodies carry codes and
// download links and the recipient is personal data. Only this module seals and opens them, under the
// Keyring purpose `outbox`, bound to the message id. Once a message is delivered its bodies are purged
// and its recipient kept masked only (purgedContent): what was sent is no longer readable, what happened is.
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';
import { maskEmail } from './recipient-mask.ts';

export interface MessageContent {
  to: string;
  subject: string;
  /** null once the message was delivered and its bodies purged. */
  text: string | null;
  html: string | null;
}

const associatedData = (messageId: string) => `outbox:${messageId}`;

export function sealContent(keyring: Keyring, messageId: string, content: MessageContent): Buffer {
  return seal(keyring.secretKey('outbox'), JSON.stringify(content), associatedData(messageId));
}

export function openContent(keyring: Keyring, messageId: string, sealed: Uint8Array): MessageContent {
  return JSON.parse(
    openText(keyring.secretKey('outbox'), sealed, associatedData(messageId)),
  ) as MessageContent;
}

/** What a delivered message keeps: the recipient masked and the subject; no body. */
export function purgedContent(content: MessageContent): MessageContent {
  return { to: maskEmail(content.to), subject: content.subject, text: null, html: null };
}
