// The one owner of a connection's secrets at rest: the authorization header value, the extra callback
// headers, the OAuth client secret and the callback signing secret are sealed and opened here only (AES-256-GCM, each bound to its
// connection key and field). A signing secret is shown once (when the connection is created or the secret
// rotated) and otherwise only ever opened to sign; the others are never shown again. This module must
// never log or return a secret on its own.
import { randomBytes } from 'node:crypto';
import type { Keyring } from '../crypto/keyring.ts';
import { openText, seal } from '../crypto/secret-box.ts';

export const SIGNING_SECRET_PREFIX = 'whsec_';

/** Longest grace period a rotation may give the previous secret: one day covers a staged receiver rollout. */
export const MAX_SIGNING_GRACE_SECONDS = 86_400;

/** `whsec_` and 32 random bytes in base64url: 256 bits, safe in headers, configs and shells. */
export function generateSigningSecret(): string {
  return `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Associated data binding a sealed signing secret to its connection; the previous secret shares it. */
const signingSecretAad = (connectionKey: string) => `connection:${connectionKey}:signing_secret`;

export function sealSigningSecret(keyring: Keyring, connectionKey: string, secret: string): Buffer {
  return seal(keyring.secretKey('callback-signing'), secret, signingSecretAad(connectionKey));
}

export function openSigningSecret(keyring: Keyring, connectionKey: string, sealed: Uint8Array): string {
  return openText(keyring.secretKey('callback-signing'), sealed, signingSecretAad(connectionKey));
}

/** Associated data the sealed columns are opened with; changing it makes stored secrets unreadable. */
const authorizationAad = (connectionKey: string) => `connection:${connectionKey}:authorization`;
const oauthClientSecretAad = (connectionKey: string) => `connection:${connectionKey}:oauth_client_secret`;

export function sealAuthorization(keyring: Keyring, connectionKey: string, authorization: string): Buffer {
  return seal(keyring.secretKey('connection-secrets'), authorization, authorizationAad(connectionKey));
}

export function openAuthorization(keyring: Keyring, connectionKey: string, sealed: Uint8Array): string {
  return openText(keyring.secretKey('connection-secrets'), sealed, authorizationAad(connectionKey));
}

export function sealOAuthClientSecret(keyring: Keyring, connectionKey: string, clientSecret: string): Buffer {
  return seal(keyring.secretKey('connection-secrets'), clientSecret, oauthClientSecretAad(connectionKey));
}

export function openOAuthClientSecret(keyring: Keyring, connectionKey: string, sealed: Uint8Array): string {
  return openText(keyring.secretKey('connection-secrets'), sealed, oauthClientSecretAad(connectionKey));
}

/** The extra callback headers, sealed as one JSON object: values are secrets, like the authorization. */
const callbackHeadersAad = (connectionKey: string) => `connection:${connectionKey}:headers`;

export function sealCallbackHeaders(
  keyring: Keyring,
  connectionKey: string,
  headers: Record<string, string>,
): Buffer {
  return seal(
    keyring.secretKey('connection-secrets'),
    JSON.stringify(headers),
    callbackHeadersAad(connectionKey),
  );
}

export function openCallbackHeaders(
  keyring: Keyring,
  connectionKey: string,
  sealed: Uint8Array,
): Record<string, string> {
  return JSON.parse(
    openText(keyring.secretKey('connection-secrets'), sealed, callbackHeadersAad(connectionKey)),
  ) as Record<string, string>;
}
