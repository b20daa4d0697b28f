// How subject data is protected at rest: attribute values, file names and file chunks are sealed with
// the datastore's own key (AES-256-GCM, associated data binding each box to its row), and identity
// lookups go through a blind index (HMAC-SHA-256 of the normalised value under a second datastore key).
// Nothing here touches the database.
import { createHmac } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import { openPieces, openText, seal } from '../crypto/secret-box.ts';
import { isEmailAddress } from '../validation/email.ts';

/** Emails compare case-insensitively and without surrounding blanks; every other value exactly. */
export function normaliseIdentity(value: string): string {
  const trimmed = value.trim();
  return isEmailAddress(trimmed) ? trimmed.toLowerCase() : value;
}

export function blindIndex(keyring: Keyring, datastore: string, value: string): Buffer {
  return createHmac('sha256', keyring.secretKey(`datastore-blind-index:${datastore}`))
    .update(normaliseIdentity(value))
    .digest();
}

const valueKey = (keyring: Keyring, datastore: string) => keyring.secretKey(`datastore-values:${datastore}`);

export function sealAttributeValue(
  keyring: Keyring,
  datastore: string,
  entityId: string,
  name: string,
  value: string,
): Buffer {
  return seal(valueKey(keyring, datastore), value, `${entityId}:${name}`);
}

export function openAttributeValue(
  keyring: Keyring,
  datastore: string,
  entityId: string,
  name: string,
  sealed: Uint8Array,
): string {
  return openText(valueKey(keyring, datastore), sealed, `${entityId}:${name}`);
}

export function sealFileName(keyring: Keyring, datastore: string, fileId: string, fileName: string): Buffer {
  return seal(valueKey(keyring, datastore), fileName, `${fileId}:name`);
}

export function openFileName(
  keyring: Keyring,
  datastore: string,
  fileId: string,
  sealed: Uint8Array,
): string {
  return openText(valueKey(keyring, datastore), sealed, `${fileId}:name`);
}

export function sealFileChunk(
  keyring: Keyring,
  datastore: string,
  fileId: string,
  chunkNo: number,
  bytes: Buffer,
): Buffer {
  return seal(valueKey(keyring, datastore), bytes, `${fileId}:${chunkNo}`);
}

/** A chunk read in consecutive slices, opened into as many plaintext pieces once it is authenticated. */
export function openFileChunk(
  keyring: Keyring,
  datastore: string,
  fileId: string,
  chunkNo: number,
  sealedSlices: readonly Uint8Array[],
): Buffer[] {
  return openPieces(valueKey(keyring, datastore), sealedSlices, `${fileId}:${chunkNo}`);
}

export function sealRecipient(keyring: Keyring, datastore: string, entityId: string, email: string): Buffer {
  return seal(valueKey(keyring, datastore), email, `sar-recipient:${entityId}`);
}

export function openRecipient(
  keyring: Keyring,
  datastore: string,
  entityId: string,
  sealed: Uint8Array,
): string {
  return openText(valueKey(keyring, datastore), sealed, `sar-recipient:${entityId}`);
}

/** A line's error of an entity import: it may quote the line's values, so it is sealed like them. */
export function sealImportError(
  keyring: Keyring,
  datastore: string,
  importId: string,
  line: number,
  message: string,
): Buffer {
  return seal(valueKey(keyring, datastore), message, `import-error:${importId}:${line}`);
}

export function openImportError(
  keyring: Keyring,
  datastore: string,
  importId: string,
  line: number,
  sealed: Uint8Array,
): string {
  return openText(valueKey(keyring, datastore), sealed, `import-error:${importId}:${line}`);
}
