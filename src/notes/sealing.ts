// Notes and attachments of a request may hold personal data: their text, file names and chunks are sealed
// under the keyring purpose `request-notes`, each bound to its row (and chunk number). Only this module
// seals and opens them.
import type { Keyring } from '../crypto/keyring.ts';
import { open, openText, seal } from '../crypto/secret-box.ts';

export const sealNoteText = (keyring: Keyring, noteId: string, text: string) =>
  seal(keyring.secretKey('request-notes'), text, `note:${noteId}`);

export const openNoteText = (keyring: Keyring, noteId: string, sealed: Uint8Array) =>
  openText(keyring.secretKey('request-notes'), sealed, `note:${noteId}`);

export const sealFileName = (keyring: Keyring, attachmentId: string, name: string) =>
  seal(keyring.secretKey('request-notes'), name, `attachment:${attachmentId}:name`);

export const openFileName = (keyring: Keyring, attachmentId: string, sealed: Uint8Array) =>
  openText(keyring.secretKey('request-notes'), sealed, `attachment:${attachmentId}:name`);

export const sealChunk = (keyring: Keyring, attachmentId: string, chunkNo: number, bytes: Buffer) =>
  seal(keyring.secretKey('request-notes'), bytes, `attachment:${attachmentId}:${chunkNo}`);

export const openChunk = (keyring: Keyring, attachmentId: string, chunkNo: number, sealed: Uint8Array) =>
  open(keyring.secretKey('request-notes'), sealed, `attachment:${attachmentId}:${chunkNo}`);
