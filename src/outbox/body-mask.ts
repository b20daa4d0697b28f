// What the outbox shows of a message body to an operator who is not an owner: the verification codes and
// the download links' tokens replaced by `***` (a viewer could otherwise verify a stranger's request or
// download their data). Owners (role `owner`, or the root client) see the bodies as sent, because without
// LETHE_SMTP_URL the outbox is where the codes and links of a local run are read.
import { type Principal, SCOPES } from '../auth/scopes.ts';

export const MASK = '***';

/** A verification code as the templates write it, and a download link's token (43 base64url characters). */
const SECRETS: readonly [RegExp, string][] = [
  [/(enter this code:\s*)\d{4,10}/gi, `$1${MASK}`],
  [/(\/privacy-center\/download\/)[A-Za-z0-9_-]+/g, `$1${MASK}`],
];

export function maskBodySecrets(body: string): string {
  return SECRETS.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), body);
}

/** An operator holding the owner role (every scope), or the root client. */
export function seesOutboxSecrets(principal: Principal, rootClientId: string | undefined): boolean {
  if (principal.username !== undefined) return SCOPES.every((scope) => principal.scopes.includes(scope));
  return rootClientId !== undefined && principal.clientId === rootClientId;
}
