// High-entropy credentials (client secrets, access tokens, API keys): generated here, stored only as
// SHA-256 digests (their entropy makes a slow hash unnecessary) and compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

export function matchesDigest(secret: string, expected: Uint8Array): boolean {
  const actual = digest(secret);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}
