// Schemas shared by every management route.
import Type from 'typebox';

export const ErrorDetail = Type.Object({ detail: Type.String() }, { $id: undefined });

/** Standard error answers for a management route guarded by a token. */
export const managementErrors = {
  400: ErrorDetail,
  401: ErrorDetail,
  403: ErrorDetail,
  422: ErrorDetail,
} as const;

export const security = [{ managementToken: [] as string[] }];

/** The resume and pre-approval answers: the reply-to-token a webhook call carried. */
export const replyTokenSecurity = [{ replyToken: [] as string[] }];

declare module 'fastify' {
  interface FastifySchema {
    /** The body may be left out (it then means `{}`): the document marks the request body optional. */
    'x-body-optional'?: boolean;
  }
}

/** Spread into a route's schema whose body may be left out (src/http/openapi/responses.ts reads it). */
export const OPTIONAL_BODY = { 'x-body-optional': true } as const;

export const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
});

export function Page<T extends Type.TSchema>(item: T) {
  return Type.Object({
    items: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    size: Type.Integer(),
    pages: Type.Integer({ description: 'How many pages of this size the whole list fills.' }),
  });
}
