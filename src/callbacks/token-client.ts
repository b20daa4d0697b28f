// One OAuth 2.0 client-credentials token request to a target's token URL (RFC 6749 section 4.4): the client
// authenticates with HTTP Basic and repeats its credentials in the form body (servers differ in which they
// read). The call goes through the SSRF guard, within the webhook timeout, never follows a redirect and
// reads at most TOKEN_RESPONSE_LIMIT bytes. Failures are TargetAuthErrors whose reason names the token
// host and what went wrong; never the client secret, never a token, never the answer's body.
import type { Dispatcher } from 'undici';
import { DomainError } from '../errors.ts';
import { assertAllowedDestination, type DestinationPolicy } from '../net/destination-guard.ts';

/** Largest token answer read; a real one is well under 8 KiB. */
export const TOKEN_RESPONSE_LIMIT = 64 * 1024;

/** Lifetime assumed when the answer carries no `expires_in` (RFC 6749 makes it optional). */
export const DEFAULT_TOKEN_LIFETIME_SECONDS = 3600;

export type TargetAuthFailure =
  | 'not_allowed'
  | 'unreachable'
  | 'timeout'
  | 'redirect'
  | 'status'
  | 'too_large'
  | 'invalid_response'
  | 'unreadable_configuration';

/** Why no bearer token could be had for a connection; the engine puts the request in `error` with `reason`. */
export class TargetAuthError extends Error {
  override name = 'TargetAuthError';
  readonly code = 'LETHE_TARGET_AUTH';
  readonly connectionKey: string;
  readonly failure: TargetAuthFailure;
  /** A sentence naming the token URL's host and, when there was one, the HTTP status. */
  readonly reason: string;
  /** The token endpoint's HTTP status, when it answered. */
  readonly status: number | undefined;

  constructor(connectionKey: string, failure: TargetAuthFailure, reason: string, status?: number) {
    super(`OAuth token for connection ${connectionKey} could not be obtained: ${reason}`);
    this.connectionKey = connectionKey;
    this.failure = failure;
    this.reason = reason;
    this.status = status;
  }
}

export interface TokenRequest {
  connectionKey: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
}

export interface IssuedToken {
  accessToken: string;
  expiresInSeconds: number;
}

export interface TokenClientSettings extends DestinationPolicy {
  webhookTimeoutMs: number;
}

/** application/x-www-form-urlencoded encoding, which RFC 6749 (2.3.1) applies before Basic's base64. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/** RFC 6750 bearer tokens are visible ASCII; anything else could not be sent in a header anyway. */
const HEADER_SAFE_TOKEN = /^[\x21-\x7e]{1,8192}$/;

/** RFC 6749 error codes are short lowercase words: safe to repeat, unlike the rest of an error answer. */
const OAUTH_ERROR_CODE = /^[a-z_]{1,64}$/;

export async function requestAccessToken(
  dispatcher: Dispatcher,
  settings: TokenClientSettings,
  request: TokenRequest,
): Promise<IssuedToken> {
  const host = hostOf(request.tokenUrl);
  const fail = (failure: TargetAuthFailure, reason: string, status?: number) =>
    new TargetAuthError(request.connectionKey, failure, reason, status);

  try {
    await assertAllowedDestination(request.tokenUrl, settings, 'token_url');
  } catch (error) {
    if (error instanceof DomainError)
      throw fail('not_allowed', `token_url ${host} is not allowed: ${error.message}`);
    throw error;
  }

  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (request.scope !== '') form.set('scope', request.scope);
  form.set('client_id', request.clientId);
  form.set('client_secret', request.clientSecret);
  const basic = Buffer.from(`${formEncode(request.clientId)}:${formEncode(request.clientSecret)}`).toString(
    'base64',
  );

  const deadline = AbortSignal.timeout(settings.webhookTimeoutMs);
  let response: Dispatcher.ResponseData;
  try {
    response = await dispatcher.request({
      origin: new URL(request.tokenUrl).origin,
      path: pathOf(request.tokenUrl),
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
      signal: deadline,
      headersTimeout: settings.webhookTimeoutMs,
      bodyTimeout: settings.webhookTimeoutMs,
    });
  } catch (error) {
    if (timedOut(deadline, error))
      throw fail('timeout', `token endpoint ${host} did not answer within ${settings.webhookTimeoutMs} ms`);
    throw fail('unreachable', `token endpoint ${host} could not be reached (${errorCode(error)})`);
  }

  const { statusCode } = response;
  if (statusCode >= 300 && statusCode < 400) {
    await response.body.dump();
    throw fail(
      'redirect',
      `token endpoint ${host} answered a redirect (HTTP ${statusCode}), which is not followed`,
      statusCode,
    );
  }

  let text: string;
  try {
    text = await readCapped(response.body, TOKEN_RESPONSE_LIMIT);
  } catch (error) {
    if (error instanceof ResponseTooLarge && (statusCode < 200 || statusCode >= 300)) {
      throw fail('status', `token endpoint ${host} answered HTTP ${statusCode}`, statusCode);
    }
    if (error instanceof ResponseTooLarge) {
      throw fail(
        'too_large',
        `token endpoint ${host} answered more than ${TOKEN_RESPONSE_LIMIT} bytes (HTTP ${statusCode})`,
        statusCode,
      );
    }
    if (timedOut(deadline, error))
      throw fail(
        'timeout',
        `token endpoint ${host} did not finish its answer within ${settings.webhookTimeoutMs} ms`,
        statusCode,
      );
    throw fail(
      'unreachable',
      `token endpoint ${host} broke off its answer (${errorCode(error)})`,
      statusCode,
    );
  }

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const answer =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;

  if (statusCode < 200 || statusCode >= 300) {
    const code =
      typeof answer?.error === 'string' && OAUTH_ERROR_CODE.test(answer.error) ? ` (${answer.error})` : '';
    throw fail('status', `token endpoint ${host} answered HTTP ${statusCode}${code}`, statusCode);
  }
  if (answer === undefined)
    throw fail(
      'invalid_response',
      `token endpoint ${host} answered HTTP ${statusCode} without a JSON object`,
      statusCode,
    );

  const accessToken = answer.access_token;
  if (typeof accessToken !== 'string' || !HEADER_SAFE_TOKEN.test(accessToken)) {
    throw fail(
      'invalid_response',
      `token endpoint ${host} answered HTTP ${statusCode} without a usable access_token`,
      statusCode,
    );
  }
  const tokenType = answer.token_type;
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    throw fail(
      'invalid_response',
      `token endpoint ${host} issued a token that is not a bearer token`,
      statusCode,
    );
  }
  return {
    accessToken,
    expiresInSeconds: lifetimeOf(answer.expires_in, () =>
      fail(
        'invalid_response',
        `token endpoint ${host} answered an expires_in that is not a positive number of seconds`,
        statusCode,
      ),
    ),
  };
}

/** expires_in as a positive number of seconds; some servers send it as a numeric string, which is accepted. */
function lifetimeOf(raw: unknown, invalid: () => TargetAuthError): number {
  if (raw === undefined || raw === null) return DEFAULT_TOKEN_LIFETIME_SECONDS;
  const value = typeof raw === 'string' && /^\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw invalid();
  return value;
}

class ResponseTooLarge extends Error {}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new ResponseTooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an unparsable URL';
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** The system error code (ECONNREFUSED, ...) of a failed call: informative and free of any value sent. */
function errorCode(error: unknown): string {
  const failed = error as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = failed?.code ?? failed?.cause?.code;
  return typeof code === 'string' ? code : 'connection failed';
}

/** The overall deadline passed, or one of undici's own timeouts (same length) fired just before it. */
function timedOut(deadline: AbortSignal, error: unknown): boolean {
  return (
    deadline.aborted ||
    ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'].includes(errorCode(error))
  );
}
