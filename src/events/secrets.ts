// The one owner of an event subscription's signing secret: generated here in the Standard Webhooks form
// (`whsec_` and 32 random bytes in standard base64, which every Standard Webhooks library accepts), sealed
// at rest bound to the subscription's key, opened only to sign. Shown once, when made or rotated.
import { randomBytes } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export function generateEventSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const associatedData = (subscriptionKey: string) => `event-subscription:${subscriptionKey}:secret`;

export function sealEventSecret(keyring: Keyring, subscriptionKey: string, secret: string): Buffer {
  return seal(keyring.secretKey('event-signing'), secret, associatedData(subscriptionKey));
}

export function openEventSecret(keyring: Keyring, subscriptionKey: string, sealed: Uint8Array): string {
  return openText(keyring.secretKey('event-signing'), sealed, associatedData(subscriptionKey));
}
