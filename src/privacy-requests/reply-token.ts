// Reply-to-tokens: compact JWE (dir, A256GCM) under the resume-token key, holding the webhook id, the
// privacy request id, the scopes, the time of issue and a unique jti (recorded by the caller so that a
// token works once). This module only seals and opens; whether a token may act is the service's rule.
import { createCipheriv, randomBytes, randomUUID } from 'node:crypto';
import { compactDecrypt } from 'jose';
import type { Keyring } from '../crypto/keyring.ts';
import type { Status } from './statuses.ts';

export const RESUME_SCOPE = 'privacy-request:resume';

export interface ReplyTokenClaims {
  webhook_id: string;
  privacy_request_id: string;
  scopes: string[];
  iat: number;
  jti: string;
}

export async function issueReplyToken(
  keyring: Keyring,
  claims: Omit<ReplyTokenClaims, 'iat' | 'jti' | 'scopes'> & { scopes?: string[]; jti?: string },
  now = new Date(),
): Promise<{ token: string; claims: ReplyTokenClaims }> {
  const full: ReplyTokenClaims = {
    webhook_id: claims.webhook_id,
    privacy_request_id: claims.privacy_request_id,
    scopes: claims.scopes ?? [RESUME_SCOPE],
    iat: Math.floor(now.getTime() / 1000),
    // A jti given is one the caller has already recorded (or is recording) for this token.
    jti: claims.jti ?? randomUUID(),
  };
  return { token: sealCompactJwe(keyring, JSON.stringify(full)), claims: full };
}

/** The protected header of every reply token, base64url-encoded once: it is also the cipher's AAD. */
const PROTECTED_HEADER = Buffer.from(
  JSON.stringify({ alg: 'dir', enc: 'A256GCM', typ: 'lethe-reply+jwe' }),
).toString('base64url');

/**
 * The compact JWE (RFC 7516 section 7.1) that jose's CompactEncrypt makes for `dir` and `A256GCM`, made
 * with node:crypto directly: header, an empty encrypted key, a 96-bit IV, the ciphertext and the tag. A
 * two_way call carries one, and jose's async WebCrypto path cost more CPU than the token's own AES-GCM.
 */
function sealCompactJwe(keyring: Keyring, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyring.secretKey('resume-token'), iv);
  cipher.setAAD(Buffer.from(PROTECTED_HEADER, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    PROTECTED_HEADER,
    '',
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

/** The claims of a token this installation issued, or undefined for anything else (tampered, foreign, malformed). */
export async function openReplyToken(keyring: Keyring, token: string): Promise<ReplyTokenClaims | undefined> {
  try {
    const { plaintext, protectedHeader } = await compactDecrypt(token, keyring.key('resume-token'), {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    if (protectedHeader.typ !== 'lethe-reply+jwe') return undefined;
    const claims = JSON.parse(new TextDecoder().decode(plaintext)) as Partial<ReplyTokenClaims>;
    if (
      typeof claims.webhook_id !== 'string' ||
      typeof claims.privacy_request_id !== 'string' ||
      typeof claims.iat !== 'number' ||
      typeof claims.jti !== 'string' ||
      !Array.isArray(claims.scopes)
    ) {
      return undefined;
    }
    return claims as ReplyTokenClaims;
  } catch {
    return undefined;
  }
}

/** What a reply-to call answers: the request's status as the call left it. */
export interface ReplyAnswer {
  privacy_request_id: string;
  status: Status;
}
