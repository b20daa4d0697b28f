// The declarations of lethe/client (index.js): createLetheClient and the generated document types.
import type { Client } from 'openapi-fetch';
import type { components, paths } from './lethe-api.js';

export type { components, operations, paths } from './lethe-api.js';

/** A component schema of the document by name: `Schema<'PrivacyRequest'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/**
 * A privacy request's identity. The document types custom identities (`additionalProperties`) as
 * `{label, value}`, which TypeScript also applies to `email` and `phone_number`: a literal with them needs
 * `as Identity` until the document says so (its identity schema is finished in src/http/openapi/).
 */
export type Identity = NonNullable<
  paths['/v1/privacy-request']['post']['requestBody']
>['content']['application/json'][number]['identity'];

export interface LetheClientOptions {
  /** The server of the document: `http://127.0.0.1:8080`, or '' for the same origin in a browser. */
  baseUrl: string;
  /** A management access token (createAccessToken or login), sent as `Authorization: Bearer`. */
  token?: string;
  /** Headers added to every call. */
  headers?: Record<string, string>;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

/** One method per HTTP verb (`GET`, `POST`, ...), typed by path: bodies, parameters and answers. */
export type LetheClient = Client<paths>;

export function createLetheClient(options: LetheClientOptions): LetheClient;
