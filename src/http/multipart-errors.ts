// A multipart body the parser cannot read (cut short, a malformed part header, a missing boundary) is the
// client's fault: 400 with the parser's sentence. The parser throws plain errors without a status code, which
// would otherwise answer 500. Shared by every route that reads multipart parts itself (Area B's files and
// fields, a request's attachments).
import { isStoreUnavailable } from '../db/database.ts';
import { badRequest, DomainError } from '../errors.ts';

/** `error` as the client's 400 when it is the multipart parser's; any other error unchanged. */
export function multipartInputError(error: unknown): unknown {
  if (
    !(error instanceof Error) ||
    error instanceof DomainError ||
    isStoreUnavailable(error) ||
    (error as { statusCode?: unknown }).statusCode !== undefined ||
    !/multipart|part header|boundary/i.test(error.message)
  ) {
    return error;
  }
  return badRequest(`The multipart body is malformed: ${error.message.replace(/\.$/, '')}.`);
}
