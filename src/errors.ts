// Typed domain errors. Services throw them; the HTTP layer maps each kind to a status code once
// (src/http/error-handler.ts). Messages are sentences safe to show a caller: never a secret.
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

  constructor(kind: DomainErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export const badRequest = (message: string) => new DomainError('bad_request', message);
export const invalid = (message: string) => new DomainError('invalid', message);
export const unauthorized = (message: string) => new DomainError('unauthorized', message);
export const forbidden = (message: string) => new DomainError('forbidden', message);
export const notFound = (message: string) => new DomainError('not_found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const gone = (message: string) => new DomainError('gone', message);
export const tooLarge = (message: string) => new DomainError('too_large', message);
export const tooManyRequests = (message: string) => new DomainError('too_many_requests', message);
export const unavailable = (message: string) => new DomainError('unavailable', message);
