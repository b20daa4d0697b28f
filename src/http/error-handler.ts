// Maps every error to one answer. Management routes answer JSON {"detail": "..."}; subject-data routes
// (config.plainErrors) answer a text/plain sentence, as the seed's Area B asks. 5xx never show internals.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isStoreUnavailable, isUnstorableValue } from '../db/database.ts';
import { DomainError, type DomainErrorKind } from '../errors.ts';

export const STATUS_BY_KIND: Record<DomainErrorKind, number> = {
  bad_request: 400,
  invalid: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
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

function describeValidation(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'body';
  const missing = (first.params as { missingProperty?: string } | undefined)?.missingProperty;
  const extra = (first.params as { additionalProperty?: string } | undefined)?.additionalProperty;
  const pointer = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const field = [where, pointer, missing ?? extra].filter(Boolean).join('.');
  if (missing) return `${field} is required.`;
  if (extra) return `${field} is not an accepted field.`;
  return `${field} ${first.message ?? 'is invalid'}.`;
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
