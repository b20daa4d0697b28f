// The outbox's way in: a rendered message with its recipient, queued inside the caller's transaction so
// that it exists if and only if the change that caused it committed. The outbox neither chooses the
// recipient nor the words; it seals what it is given and delivers it.
import { randomUUID } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import type { Queryable } from '../db/database.ts';
import { sealContent } from './content.ts';
import { type MessageKind, type NewMessage, outboxRepository } from './repository.ts';

export interface AddressedMessage {
  /** null for a message to operators about no one request (the events' digest and warnings). */
  privacyRequestId: string | null;
  kind: MessageKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** When the outbox may send it, if not at once (a mail held for its recipient's hourly cap). */
  notBefore?: Date;
}

export async function enqueueMessages(
  tx: Queryable,
  keyring: Keyring,
  messages: readonly AddressedMessage[],
): Promise<void> {
  await outboxRepository.insert(tx, sealMessages(keyring, messages));
}

/** The messages as the outbox stores them, each under its new id, for a caller inserting them itself. */
export function sealMessages(keyring: Keyring, messages: readonly AddressedMessage[]): NewMessage[] {
  return messages.map(({ privacyRequestId, kind, notBefore, ...content }) => {
    const id = `msg_${randomUUID()}`;
    return {
      id,
      privacyRequestId,
      kind,
      contentSealed: sealContent(keyring, id, content),
      ...(notBefore && { notBefore }),
    };
  });
}
