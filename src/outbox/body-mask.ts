// What the outbox shows of a message body to an operator who is not an owner: the verification codes and
// every acting link's token (download, confirm-agent, appeal, respondent: validation/link-tokens.ts)
// replaced by `***` (a viewer could otherwise verify a stranger's request, download their data, confirm an
// agent, burn an appeal or answer a task as its respondent). Owners (role `owner`, or the root client) see
// the bodies as sent, because without LETHE_SMTP_URL the outbox is where the codes and links of a local run
// are read.
import { type Principal, SCOPES } from '../auth/scopes.ts';
import { maskLinkTokens, TOKEN_MASK } from '../validation/link-tokens.ts';

export const MASK = TOKEN_MASK;

/** A verification code as the templates write it. */
const CODE = /(enter this code:\s*)\d{4,10}/gi;

export function maskBodySecrets(body: string): string {
  return maskLinkTokens(body.replace(CODE, `$1${MASK}`));
}

/** An operator holding the owner role (every scope), or the root client. */
export function seesOutboxSecrets(principal: Principal, rootClientId: string | undefined): boolean {
  if (principal.username !== undefined) return SCOPES.every((scope) => principal.scopes.includes(scope));
  return rootClientId !== undefined && principal.clientId === rootClientId;
}
