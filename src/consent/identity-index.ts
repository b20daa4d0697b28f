// The one owner of the consent key: an identity's consent preferences are filed under the HMAC of its
// kind and normalised value (emails lower-cased, as the subject store compares them), so the consent
// tables never hold an identity value and a lookup needs the value itself.
import { createHmac } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import { normaliseIdentity } from '../datastore/sealing.ts';

export function consentIndex(keyring: Keyring, kind: string, value: string): Buffer {
  return createHmac('sha256', keyring.secretKey('consent-index'))
    .update(`${kind}:${normaliseIdentity(value)}`)
    .digest();
}
