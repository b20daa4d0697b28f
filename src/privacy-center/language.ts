// The language of a public page, and a refusal in it. A page is read in the visitor's language: `?lang=`,
// else Accept-Language, else LETHE_DEFAULT_LANGUAGE (src/i18n/choose.ts); a value that names no catalogue is
// ignored and never echoed. A refusal (a DomainError) reads in the catalogue's words when the service gave
// it a `wording`; otherwise an English page shows the service's own sentence and any other language the
// catalogue's sentence for its kind, so no page mixes languages.
import type { Config } from '../config.ts';
import type { DomainError, DomainErrorKind } from '../errors.ts';
import { type MessageKey, REFERENCE_LANGUAGE, translate } from '../i18n/catalogue.ts';
import { chooseLanguage } from '../i18n/choose.ts';
import { formatDay } from '../i18n/dates.ts';

/** What of a page's request says its language: `?lang=` and Accept-Language (any HTTP request has both). */
export interface AskedLanguage {
  query: unknown;
  headers: { 'accept-language'?: string | undefined };
}

export function visitorLanguage(request: AskedLanguage, config: Pick<Config, 'defaultLanguage'>): string {
  const query = (request.query as Record<string, unknown> | undefined)?.lang;
  return chooseLanguage(
    { query, acceptLanguage: request.headers['accept-language'] },
    config.defaultLanguage,
  );
}

const REFUSAL_OF_KIND: Record<DomainErrorKind, MessageKey> = {
  not_found: 'refusal.not_found',
  gone: 'refusal.gone',
  too_many_requests: 'refusal.too_many_requests',
  forbidden: 'refusal.forbidden',
  unauthorized: 'refusal.forbidden',
  invalid: 'refusal.invalid',
  bad_request: 'refusal.invalid',
  too_large: 'refusal.invalid',
  conflict: 'refusal.other',
  unavailable: 'refusal.other',
};

/** The sentence a page shows for a refusal, in `language`. */
export function refusalSentence(language: string, error: DomainError): string {
  if (error.wording) {
    const values = Object.fromEntries(
      Object.entries(error.wording.values ?? {}).map(([name, value]) => [
        name,
        value instanceof Date ? formatDay(language, value) : value,
      ]),
    );
    return translate(language, error.wording.key, values);
  }
  return language === REFERENCE_LANGUAGE ? error.message : translate(language, REFUSAL_OF_KIND[error.kind]);
}
