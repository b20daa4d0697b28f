// Maps every error to one answer. Management routes answer JSON {"detail": "..."}; subject-data routes
// (config.plainErrors) answer a text/plain sentence, as the seed's Area B asks. 5xx never show internals.
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable, isUnstorableValue } from '../db/database.ts';
import { DomainError, type DomainErrorKind } from '../errors.ts';
import { describeSchemaErrors } from '../validation/messages.ts';

export const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  bad_request: 400,
  invalid: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  too_many_requests: 429,
  unavailable: 503,
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Area B: errors are text/plain sentences and validation failures answer 400, not 422. */
    plainErrors?: boolean;
  }
}

const MALFORMED_MULTIPART = new Set(['FST_INVALID_MULTIPART_CONTENT_TYPE', 'FST_INVALID_JSON_FIELD_ERROR']);

/** 1048576 -> "1 MiB (1048576 bytes)". */
function sizeInWords(bytes: number): string {
  const mebibytes = bytes / (1024 * 1024);
  const kibibytes = bytes / 1024;
  const rounded = Number.isInteger(mebibytes)
    ? `${mebibytes} MiB`
    : Number.isInteger(kibibytes)
      ? `${kibibytes} KiB`
      : undefined;
  return rounded ? `${rounded} (${bytes} bytes)` : `${bytes} bytes`;
}

function describeValidation(error: FastifyError): string {
  const where = error.validationContext ?? 'body';
  return describeSchemaErrors(
    (error.validation ?? []) as ErrorObject[],
    (failed, property) =>
      [where, failed.instancePath.replace(/^\//, '').replaceAll('/', '.'), property]
        .filter(Boolean)
        .join('.'),
    error.message,
  );
}

export function answerError(
  error: FastifyError | DomainError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const plain = request.routeOptions.config?.plainErrors === true;
  let status: number;
  let message: string;

  if (error instanceof DomainError) {
    status = STATUS_BY_KIND[error.kind];
    message = error.message;
  } else if ((error as FastifyError).validation) {
    status = plain ? 400 : 422;
    message = describeValidation(error as FastifyError);
  } else if (isUnstorableValue(error)) {
    status = plain ? 400 : 422;
    message =
      'A value cannot be stored: it holds a NUL character, or is too long or out of range for its field.';
    request.log.warn({ err: error }, 'value refused by the database');
  } else if (isStoreUnavailable(error)) {
    status = 503;
    message = 'The database is unavailable; try again shortly.';
    reply.header('retry-after', '5');
  } else if (MALFORMED_MULTIPART.has((error as FastifyError).code)) {
    // @fastify/multipart answers these 406 (Not Acceptable, which is about the Accept header): the body
    // is malformed, a 400 like any other.
    status = 400;
    message =
      (error as FastifyError).code === 'FST_INVALID_JSON_FIELD_ERROR'
        ? 'A multipart field declared as application/json does not hold valid JSON.'
        : 'The request is not multipart/form-data.';
  } else if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    status = 413;
    message = `The request body is larger than the limit of ${sizeInWords(request.routeOptions.bodyLimit)}.`;
  } else {
    const fastifyStatus = (error as FastifyError).statusCode;
    if (fastifyStatus && fastifyStatus >= 400 && fastifyStatus < 500) {
      status = fastifyStatus;
      message = error.message;
    } else {
      status = 500;
      message = 'Internal server error; try again later.';
    }
  }

  if (status >= 500 && status !== 503) request.log.error({ err: error }, 'request failed');
  reply.status(status);
  if (plain) return reply.type('text/plain; charset=utf-8').send(message);
  return reply.type('application/json; charset=utf-8').send({ detail: message });
}

/**
 * The router's refusals, before any route is matched: a malformed percent-encoding in the path (400) and
 * a path parameter longer than the router's 100 characters (414). The sentence never repeats the path,
 * which may hold a personal value.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const messages: Record<string, [number, string]> = {
    FST_ERR_BAD_URL: [400, 'The path holds a malformed percent-encoding.'],
    FST_ERR_MAX_PARAM_LENGTH: [414, 'A path parameter is longer than 100 characters.'],
  };
  const [status, message] = messages[error.code] ?? [500, 'Internal server error; try again later.'];
  if (status >= 500) reply.log.error({ err: error }, 'request failed in the router');
  return reply.status(status).type('application/json; charset=utf-8').send({ detail: message });
}
