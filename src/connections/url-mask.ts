// How a connection's URLs appear in API answers and logs: the query values and any password in the
// userinfo replaced by `***` (`https://x.example/hook?token=***`), since callers often put a token there.
// The stored URL keeps them: callbacks are sent to the URL as given. The names of the query parameters stay,
// so an operator can still tell which URL is configured. A URL sent back exactly as it was shown (a form
// that round-trips it, GET then PUT) means "unchanged": the stored URL is kept (storedUnlessMasked).
export const URL_VALUE_MASK = '***';

export function maskUrlSecrets(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const query = url.indexOf('?');
    return query < 0 ? url : `${url.slice(0, query)}?${URL_VALUE_MASK}`;
  }
  if (parsed.password) parsed.password = URL_VALUE_MASK;
  if (parsed.search) {
    const names = [...parsed.searchParams.keys()];
    parsed.search = names.map((name) => `${encodeURIComponent(name)}=${URL_VALUE_MASK}`).join('&');
  }
  if (parsed.hash) parsed.hash = URL_VALUE_MASK;
  return parsed.toString();
}

/** `submitted`, unless it is the masked form of `stored` (a round-trip of what was shown): then `stored`. */
export function storedUnlessMasked(submitted: string, stored: string | null): string {
  if (stored === null || submitted === stored) return submitted;
  return maskUrlSecrets(stored) === submitted ? stored : submitted;
}
