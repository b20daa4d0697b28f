// The extra callback headers of an HTTPS connection (Fides' `headers` secret): which names and values are
// accepted and how the set joins the headers Lethe sets itself (secrets.ts seals it at rest). Lethe's own
// headers always win: a custom header can never replace the Authorization value, the signature,
// Content-Type, Idempotency-Key or a reply-to header, whatever its letter case. Values are secrets:
// nothing here logs them or puts them in an error message.
export const MAX_CALLBACK_HEADERS = 20;
const MAX_NAME_LENGTH = 256;
const MAX_VALUE_LENGTH = 8192;

/** RFC 9110 field-name: a token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 field-value: visible characters, spaces and tabs; never CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Names that describe the HTTP exchange itself, which the HTTP client sets or refuses: accepting them
 * would break every callback of the connection. The first four are the ones the product's decisions name.
 */
const REFUSED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** Headers Lethe sets on callbacks; a custom header of the same name is never sent. */
export const LETHE_CALLBACK_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'content-type',
  'idempotency-key',
  'lethe-signature',
  'reply-to',
  'reply-to-token',
  'reply-to-eligible',
  'reply-to-not-eligible',
  'reply-to-approve',
  'reply-to-deny',
]);

export type CallbackHeaders = Record<string, string>;

/** Why this set of headers cannot be stored, as a sentence naming the header (never its value); undefined when fine. */
export function callbackHeadersProblem(headers: CallbackHeaders): string | undefined {
  const names = Object.keys(headers);
  if (names.length > MAX_CALLBACK_HEADERS)
    return `headers holds ${names.length} entries; at most ${MAX_CALLBACK_HEADERS} are allowed.`;
  const seen = new Set<string>();
  for (const name of names) {
    const shown = JSON.stringify(name.slice(0, 64));
    if (name.length > MAX_NAME_LENGTH || !HEADER_NAME.test(name))
      return `headers: ${shown} is not a valid header name.`;
    const lower = name.toLowerCase();
    if (REFUSED.has(lower))
      return `headers: ${name} cannot be set; the HTTP client decides it for every callback.`;
    if (seen.has(lower)) return `headers: ${name} appears more than once (header names ignore case).`;
    seen.add(lower);
    const value = headers[name];
    if (typeof value !== 'string' || value.length > MAX_VALUE_LENGTH || !HEADER_VALUE.test(value))
      return `headers: the value of ${name} must be a string of at most ${MAX_VALUE_LENGTH} characters without line breaks.`;
  }
  return undefined;
}

/** The custom headers (lower-cased names, Lethe's own names left out) under the headers Lethe sets. */
export function withCustomHeaders(
  custom: CallbackHeaders,
  own: Record<string, string>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(custom)) {
    const lower = name.toLowerCase();
    if (!LETHE_CALLBACK_HEADERS.has(lower)) merged[lower] = value;
  }
  for (const [name, value] of Object.entries(own)) merged[name.toLowerCase()] = value;
  return merged;
}
