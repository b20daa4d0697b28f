// The HTTP client of webhook callbacks: one keep-alive undici Agent whose DNS goes through the SSRF guard,
// https unless insecure webhooks are allowed, a timeout per call, redirects never followed (a 3xx is a
// failure), response bodies read up to 1 MiB. It answers what happened; it never decides what a failure
// means for a request, and never logs or returns a request header (they carry secrets).
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { Config } from '../config.ts';
import type { WebhookCallOutcome } from '../metrics/metrics.ts';
import { guardedLookup, isInternalAddress } from '../net/destination-guard.ts';

export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface CallbackOutcome {
  /** A 2xx status with a body under the limit. */
  ok: boolean;
  /** How the call ended, in the words of the metrics. */
  kind: WebhookCallOutcome;
  status: number | undefined;
  durationMs: number;
  targetHost: string;
  /** Why the call failed, safe to log: never a header value nor the body. */
  error: string | undefined;
  /** The response body as text (only when ok). */
  body: string | undefined;
  /** A network error or a 5xx: worth another try. */
  retryable: boolean;
  /** How long a 429 or 503 answer asked the caller to wait (its Retry-After), in seconds. */
  retryAfterSeconds?: number;
}

export type CallbackPolicy = Pick<
  Config,
  'allowInsecureWebhooks' | 'webhookAllowedHosts' | 'webhookTimeoutMs'
>;

/** What a caller of webhooks needs: this client, or the same one on a thread of its own (threaded-client.ts). */
export type CallbackPoster = Pick<CallbackClient, 'post' | 'close'>;

export class CallbackClient {
  readonly #agent: Agent;
  readonly #policy: CallbackPolicy;

  constructor(policy: CallbackPolicy) {
    this.#policy = policy;
    this.#agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 64,
      connect: { lookup: guardedLookup(policy), timeout: policy.webhookTimeoutMs },
      headersTimeout: policy.webhookTimeoutMs,
      bodyTimeout: policy.webhookTimeoutMs,
    });
  }

  /** Why this URL may not be called, checked before connecting (address literals skip the DNS guard). */
  #refusal(url: URL): string | undefined {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.#policy.allowInsecureWebhooks))
      return `the callback URL must use https (http needs LETHE_ALLOW_INSECURE_WEBHOOKS)`;
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (this.#policy.webhookAllowedHosts.includes(host)) return undefined;
    if ((isIP(host) && isInternalAddress(host)) || host === 'localhost' || host.endsWith('.localhost'))
      return `refused to call the internal address ${host}; list it in LETHE_WEBHOOK_ALLOWED_HOSTS to allow it`;
    return undefined;
  }

  async post(target: string, headers: Record<string, string>, body: string): Promise<CallbackOutcome> {
    const started = performance.now();
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return failure('', started, undefined, 'the connection has no valid callback URL', false, 'refused');
    }
    const targetHost = url.host;
    const refused = this.#refusal(url);
    if (refused) return failure(targetHost, started, undefined, refused, false, 'refused');

    const signal = AbortSignal.timeout(this.#policy.webhookTimeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.#agent,
        headers,
        body,
        signal,
      });
      const status = response.statusCode;
      let text: string;
      try {
        text = await readCapped(response.body);
      } catch (error) {
        return failure(
          targetHost,
          started,
          status,
          describe(error, this.#policy.webhookTimeoutMs),
          false,
          error instanceof TooLarge ? 'http_error' : kindOf(error),
        );
      }
      if (status >= 300 && status < 400)
        return failure(
          targetHost,
          started,
          status,
          `answered a redirect (${status}); redirects are not followed`,
          false,
          'http_error',
        );
      if (status < 200 || status >= 300)
        return {
          ...failure(targetHost, started, status, `answered HTTP ${status}`, status >= 500, 'http_error'),
          retryAfterSeconds:
            status === 429 || status === 503 ? retryAfterSeconds(response.headers['retry-after']) : undefined,
        };
      return {
        ok: true,
        kind: 'ok',
        status,
        durationMs: elapsed(started),
        targetHost,
        error: undefined,
        body: text,
        retryable: false,
      };
    } catch (error) {
      const refusedByGuard = (error as { code?: string }).code === 'ERR_LETHE_INTERNAL_DESTINATION';
      return failure(
        targetHost,
        started,
        undefined,
        describe(error, this.#policy.webhookTimeoutMs),
        !refusedByGuard,
        kindOf(error),
      );
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

class TooLarge extends Error {}

async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new TooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

interface TransportError {
  name?: string;
  code?: string;
  message?: string;
  cause?: { code?: string; message?: string };
}

function codeOf(error: unknown): string | undefined {
  const err = error as TransportError;
  return err.code ?? err.cause?.code;
}

/** A network failure is a timeout, a refusal of the SSRF guard, or anything else the transport raised. */
function kindOf(error: unknown): Exclude<WebhookCallOutcome, 'ok' | 'http_error'> {
  const code = codeOf(error);
  const name = (error as TransportError).name;
  if (
    name === 'TimeoutError' ||
    name === 'AbortError' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return 'timeout';
  if (code === 'ERR_LETHE_INTERNAL_DESTINATION') return 'refused';
  return 'network_error';
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof TooLarge) return `the response body is larger than ${MAX_RESPONSE_BYTES} bytes`;
  const kind = kindOf(error);
  if (kind === 'timeout') return `no answer within ${timeoutMs} ms`;
  if (kind === 'refused') return (error as TransportError).message ?? 'refused an internal address';
  const code = codeOf(error);
  return `network error${code ? ` ${code}` : ''}`;
}

/** The HTTP date a sender must use (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A Retry-After header's wait in whole seconds (RFC 9110 §10.2.3: delay-seconds or an HTTP date), or
 * undefined when there is none or it cannot be read.
 */
export function retryAfterSeconds(
  header: string | string[] | undefined,
  now: number = Date.now(),
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d{1,10}$/.test(value)) return Number(value);
  if (!IMF_FIXDATE.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}

function failure(
  targetHost: string,
  started: number,
  status: number | undefined,
  error: string,
  retryable: boolean,
  kind: Exclude<WebhookCallOutcome, 'ok'>,
): CallbackOutcome {
  return {
    ok: false,
    kind,
    status,
    durationMs: elapsed(started),
    targetHost,
    error,
    body: undefined,
    retryable,
  };
}
