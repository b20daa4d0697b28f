// The console's only way to the service: the public management API on this origin, with the session's
// bearer token. It turns every failure into an ApiError carrying the API's own `detail` sentence; it never
// stores the token anywhere but the caller's memory and never logs a request body.

export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
}

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

/** Exchanges management client credentials for an access token (form body, as DECISIONS.md names it). */
export async function requestToken(clientId: string, clientSecret: string): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch('/v1/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: clientSecret,
      }),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached. Is Lethe running?');
  }
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  return (await response.json()) as TokenAnswer;
}

/** Signs an operator in with a username and password (POST /v1/login, Fides' answer shape). */
export async function requestLogin(username: string, password: string): Promise<TokenAnswer> {
  let response: Response;
  try {
    response = await fetch('/v1/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached. Is Lethe running?');
  }
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  const answer = (await response.json()) as { token_data: TokenAnswer };
  return answer.token_data;
}

/**
 * Whether any operator account exists (GET /console/sign-in-options, no token): the sign-in page opens on
 * the root client on a fresh start. Undefined when the service cannot say; the page then offers both.
 */
export async function requestOperatorAccountsExist(): Promise<boolean | undefined> {
  try {
    const response = await fetch('/console/sign-in-options', { cache: 'no-store', credentials: 'omit' });
    if (!response.ok) return undefined;
    const answer = (await response.json()) as { operator_accounts?: unknown };
    return typeof answer.operator_accounts === 'boolean' ? answer.operator_accounts : undefined;
  } catch {
    return undefined;
  }
}

export interface BulkAnswer<T> {
  succeeded: T[];
  failed: { message: string; data: unknown }[];
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  size: number;
}

export interface Api {
  get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** A bulk upsert whose single item must succeed: its `failed` message becomes an ApiError. */
  upsertOne<T>(path: string, item: unknown): Promise<T>;
}

/**
 * An Api bound to a token. `onUnauthorized` runs when the service refuses the token (401): the session
 * is over, whatever the reason (expired, revoked, the service restarted with another key).
 */
export function createApi(token: string, onUnauthorized: (detail: string) => void): Api {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch {
      throw new ApiError(0, 'The service cannot be reached. Is Lethe running?');
    }
    if (response.status === 401) {
      const detail = await detailOf(response);
      onUnauthorized(detail);
      throw new ApiError(401, detail);
    }
    if (!response.ok) throw new ApiError(response.status, await detailOf(response));
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  return {
    get<T>(path: string, query: Record<string, string | number | undefined> = {}) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined && value !== '') params.set(name, String(value));
      }
      const search = params.toString();
      return call<T>('GET', search ? `${path}?${search}` : path);
    },
    send<T>(method: string, path: string, body?: unknown) {
      return call<T>(method, path, body);
    },
    async upsertOne<T>(path: string, item: unknown) {
      const answer = await call<BulkAnswer<T>>('PATCH', path, [item]);
      const failure = answer.failed[0];
      if (failure) throw new ApiError(422, failure.message);
      const created = answer.succeeded[0];
      if (created === undefined) throw new ApiError(500, 'The service accepted nothing and refused nothing.');
      return created;
    },
  };
}

/** Path segment encoding for keys and ids taken from answers or forms. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
