// The console's only way to the service: the public management API on this origin, through lethe/client
// (openapi-fetch over the types generated from /openapi.json, clients/typescript/), with the session's
// bearer token. `answer` turns every failure into an ApiError carrying the API's own `detail` sentence; it
// never stores the token anywhere but the caller's memory and never logs a request body.
import { createLetheClient, type LetheClient } from '../../clients/typescript/index.js';
import type { Ok } from './schema.ts';

const UNREACHABLE = 'The service cannot be reached. Is Lethe running?';

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** An access token as POST /v1/login answers it under `token_data` (POST /v1/oauth/token adds `scope`). */
export type TokenAnswer = Ok<'/v1/login', 'post'>['token_data'];

async function detailOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text) as { detail?: unknown };
    if (typeof parsed.detail === 'string') return parsed.detail;
    if (parsed.detail !== undefined) return JSON.stringify(parsed.detail);
  } catch {
    // Not JSON: Area B and proxies answer plain sentences.
  }
  return text.trim() || `The service answered ${response.status} ${response.statusText}.`;
}

/**
 * The console's fetch: never cached, never with cookies; a network failure is an ApiError with status 0,
 * and a 401 runs `onUnauthorized` with the API's sentence.
 */
function consoleFetch(onUnauthorized?: (detail: string) => void) {
  return async (request: Request): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(new Request(request, { cache: 'no-store', credentials: 'omit' }));
    } catch {
      throw new ApiError(0, UNREACHABLE);
    }
    if (response.status === 401 && onUnauthorized) onUnauthorized(await detailOf(response.clone()));
    return response;
  };
}

/** A client without a token, for the calls that make one. */
const anonymous = () => createLetheClient({ baseUrl: '', fetch: consoleFetch() });

/** Exchanges management client credentials for an access token (a form body: docs/decisions.md#management-authentication). */
export async function requestToken(clientId: string, clientSecret: string): Promise<TokenAnswer> {
  return answer(
    anonymous().POST('/v1/oauth/token', {
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    }),
  );
}

/** Signs an operator in with a username and password (POST /v1/login, Fides' answer shape). */
export async function requestLogin(username: string, password: string): Promise<TokenAnswer> {
  const signedIn = await answer(anonymous().POST('/v1/login', { body: { username, password } }));
  return signedIn.token_data;
}

/** The session a provider's sign-in left for the console: its one-time code traded (POST /v1/oidc/session). */
export async function requestProviderSession(code: string): Promise<TokenAnswer> {
  const signedIn = await answer(anonymous().POST('/v1/oidc/session', { body: { code } }));
  return signedIn.token_data;
}

/** How operators sign in here (GET /v1/oidc): password, the identity provider, or both. */
export async function requestSignInMethods(): Promise<
  { password_login: boolean; oidc: { name: string; login_url: string } | null } | undefined
> {
  try {
    const { data } = await anonymous().GET('/v1/oidc');
    return data ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether any operator account exists (GET /console/sign-in-options, no token): the sign-in page opens on
 * the root client on a fresh start. Undefined when the service cannot say; the page then offers both.
 */
export async function requestOperatorAccountsExist(): Promise<boolean | undefined> {
  try {
    const { data } = await anonymous().GET('/console/sign-in-options');
    return typeof data?.operator_accounts === 'boolean' ? data.operator_accounts : undefined;
  } catch {
    return undefined;
  }
}

/** The API's sentence for a refusal openapi-fetch parsed (`{"detail"}`) or kept as text (Area B, proxies). */
function detailOfError(error: unknown, response: Response): string {
  if (typeof error === 'object' && error !== null && 'detail' in error) {
    const detail = (error as { detail: unknown }).detail;
    return typeof detail === 'string' ? detail : JSON.stringify(detail);
  }
  if (typeof error === 'string' && error.trim()) return error.trim();
  return `The service answered ${response.status} ${response.statusText}.`;
}

/** What openapi-fetch answers a call: the typed data of a 2xx, or the error body, and the response. */
interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The data of a call that succeeded; a refusal throws an ApiError with the API's `detail` sentence. */
export async function answer<R extends CallResult>(call: Promise<R>): Promise<NonNullable<R['data']>> {
  const { data, error, response } = await call;
  if (!response.ok) throw new ApiError(response.status, detailOfError(error, response));
  return data as NonNullable<R['data']>;
}

/** The single item of a bulk upsert that must succeed: its `failed` message becomes an ApiError. */
export async function answerOne<T>(
  call: Promise<CallResult & { data?: { succeeded: T[]; failed: { message: string }[] } }>,
): Promise<T> {
  const bulk = await answer(call);
  const failure = bulk.failed[0];
  if (failure) throw new ApiError(422, failure.message);
  const created = bulk.succeeded[0];
  if (created === undefined) throw new ApiError(500, 'The service accepted nothing and refused nothing.');
  return created;
}

/** The typed client of the management API on this origin (lethe/client), bound to a session's token. */
export type Api = LetheClient;

/**
 * An Api bound to a token. `onUnauthorized` runs when the service refuses the token (401): the session
 * is over, whatever the reason (expired, revoked, the service restarted with another key). A network
 * failure is an ApiError with status 0.
 */
export function createApi(token: string, onUnauthorized: (detail: string) => void): Api {
  return createLetheClient({ baseUrl: '', token, fetch: consoleFetch(onUnauthorized) });
}
