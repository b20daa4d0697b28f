// The one owner of the corrections key: the values a request asks to write are personal data, sealed on
// the request row and bound to its id.
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export interface Correction {
  /** `<table>.<attribute>` */
  attribute: string;
  value: string;
}

const aad = (privacyRequestId: string) => `privacy-request:${privacyRequestId}:corrections`;

export function sealCorrections(
  keyring: Keyring,
  privacyRequestId: string,
  corrections: readonly Correction[],
): Buffer {
  const plain = corrections.map((correction) => ({
    attribute: correction.attribute,
    value: correction.value,
  }));
  return seal(keyring.secretKey('corrections'), JSON.stringify(plain), aad(privacyRequestId));
}

export function openCorrections(
  keyring: Keyring,
  privacyRequestId: string,
  sealed: Uint8Array | null,
): Correction[] {
  if (!sealed) return [];
  return JSON.parse(
    openText(keyring.secretKey('corrections'), sealed, aad(privacyRequestId)),
  ) as Correction[];
}
