// Typed domain errors. Services throw them; the HTTP layer maps each kind to a status code once
// (src/http/error-handler.ts). Messages are sentences safe to show a caller: never a secret. A refusal a
// data subject can meet on a public page also carries its `wording`: the catalogue message (src/i18n/)
// that says it in the subject's language.
import type { MessageKey } from './i18n/catalogue.ts';

/** A refusal in the catalogue's words; a Date value is written as a day in the reader's language. */
export interface Wording {
  key: MessageKey;
  values?: Record<string, string | number | Date>;
}
export type DomainErrorKind =
  | 'bad_request'
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'gone'
  | 'too_large'
  | 'too_many_requests'
  | 'unavailable';

export class DomainError extends Error {
  override name = 'DomainError';
  readonly kind: DomainErrorKind;
  readonly wording: Wording | undefined;

  constructor(kind: DomainErrorKind, message: string, wording?: Wording) {
    super(message);
    this.kind = kind;
    this.wording = wording;
  }
}

export const badRequest = (message: string, wording?: Wording) =>
  new DomainError('bad_request', message, wording);
export const invalid = (message: string, wording?: Wording) => new DomainError('invalid', message, wording);
export const unauthorized = (message: string, wording?: Wording) =>
  new DomainError('unauthorized', message, wording);
export const forbidden = (message: string, wording?: Wording) =>
  new DomainError('forbidden', message, wording);
export const notFound = (message: string, wording?: Wording) =>
  new DomainError('not_found', message, wording);
export const conflict = (message: string, wording?: Wording) => new DomainError('conflict', message, wording);
export const gone = (message: string, wording?: Wording) => new DomainError('gone', message, wording);
export const tooLarge = (message: string, wording?: Wording) =>
  new DomainError('too_large', message, wording);
export const tooManyRequests = (message: string, wording?: Wording) =>
  new DomainError('too_many_requests', message, wording);
export const unavailable = (message: string, wording?: Wording) =>
  new DomainError('unavailable', message, wording);
