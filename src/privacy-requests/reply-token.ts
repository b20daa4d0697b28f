// Reply-to-tokens: compact JWE (dir, A256GCM) under the resume-token key, holding the webhook id, the
// privacy request id, the scopes, the time of issue and a unique jti (recorded by the caller so that a
// token works once). This module only seals and opens; whether a token may act is the service's rule.
import { randomUUID } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
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
  const token = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(full)))
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', typ: 'lethe-reply+jwe' })
    .encrypt(keyring.key('resume-token'));
  return { token, claims: full };
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
