// A message's content (recipient, subject, text and HTML bodies) sealed at rest: bodies carry codes and
// download links and the recipient is personal data. Only this module seals and opens them, under the
// Keyring purpose `outbox`, bound to the message id.
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export interface MessageContent {
  to: string;
  subject: string;
  text: string;
  html: string;
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
