// AES-256-GCM sealing for values at rest: version byte, 12-byte random nonce, 16-byte tag, ciphertext.
// The optional associated data binds a ciphertext to where it is stored (a row id), so it cannot be
// copied into another row and still open.
import { createCipheriv, createDecipheriv, type KeyObject, randomFillSync } from 'node:crypto';

const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + NONCE_BYTES + TAG_BYTES;

/**
 * Nonces come from a pool of CSPRNG bytes refilled 4 KiB at a time (each byte used once): one
 * randomFillSync call per 341 seals instead of one per seal.
 */
const noncePool = Buffer.alloc(NONCE_BYTES * 341);
let noncePoolOffset = noncePool.length;

function freshNonce(): Buffer {
  if (noncePoolOffset + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool);
    noncePoolOffset = 0;
  }
  const nonce = Buffer.from(noncePool.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES));
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

export function seal(key: Buffer | KeyObject, plaintext: Buffer | string, associatedData?: string): Buffer {
  const nonce = freshNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), body]);
}

export function open(key: Buffer | KeyObject, sealed: Uint8Array, associatedData?: string): Buffer {
  const box = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
  if (box.length < HEADER_BYTES || box[0] !== VERSION) throw new Error('sealed value has an unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, box.subarray(1, 1 + NONCE_BYTES));
  decipher.setAuthTag(box.subarray(1 + NONCE_BYTES, HEADER_BYTES));
  if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData));
  return Buffer.concat([decipher.update(box.subarray(HEADER_BYTES)), decipher.final()]);
}

export function openText(key: Buffer | KeyObject, sealed: Uint8Array, associatedData?: string): string {
  return open(key, sealed, associatedData).toString('utf8');
}
