// The one owner of the `oidc-sign-in` key: the PKCE verifier and the nonce of a sign-in are derived from its
// state under this key, so neither is stored and a state alone makes neither.
import { createHmac } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';

export type SignInDerivation = (purpose: 'nonce' | 'pkce', state: string) => string;

export function signInDerivation(keyring: Keyring): SignInDerivation {
  const key = keyring.secretKey('oidc-sign-in');
  return (purpose, state) => createHmac('sha256', key).update(`${purpose}:${state}`).digest('base64url');
}
