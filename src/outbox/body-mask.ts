// What the outbox shows of a message body to an operator who is not an owner: the verification codes and
// every acting link's token (download, confirm-agent, appeal, respondent: validation/link-tokens.ts)
// replaced by `***` (a viewer could otherwise verify a stranger's request, download their data, confirm an
// agent, burn an appeal or answer a task as its respondent). Owners (role `owner`, or the root client) see
// the bodies as sent, because without LETHE_SMTP_URL the outbox is where the codes and links of a local run
// are read.
import { type Principal, SCOPES } from '../auth/scopes.ts';
import { catalogueOf, LANGUAGES } from '../i18n/catalogue.ts';
import { escapeHtml } from '../validation/html.ts';
import { maskLinkTokens, TOKEN_MASK } from '../validation/link-tokens.ts';

export const MASK = TOKEN_MASK;

/**
 * The words before the code in the verification message of every language (its catalogue's
 * `mail.verification_code.code`, whose `{code}` each catalogue must lead up to), as escaped HTML and as
 * plain text, so that a code is found in any language a message was written in.
 */
function codeLeads(): string[] {
  const leads = LANGUAGES.map((language) => {
    const lead = (catalogueOf(language)['mail.verification_code.code'] ?? '').split('{code}')[0]?.trim();
    if (!lead) throw new Error(`the ${language} verification message must put words before {code}`);
    return lead;
  });
  return [...new Set([...leads, ...leads.map(escapeHtml)])].map((lead) =>
    lead.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
  );
}

/** A verification code as the templates write it, in any language. */
const CODE = new RegExp(`(${codeLeads().join('|')})(\\s*)\\d{4,10}`, 'giu');

export function maskBodySecrets(body: string): string {
  return maskLinkTokens(body.replace(CODE, `$1$2${MASK}`));
}

/** An operator holding the owner role (every scope), or the root client. */
export function seesOutboxSecrets(principal: Principal, rootClientId: string | undefined): boolean {
  if (principal.username !== undefined) return SCOPES.every((scope) => principal.scopes.includes(scope));
  return rootClientId !== undefined && principal.clientId === rootClientId;
}
