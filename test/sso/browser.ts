// A browser for the sign-in tests: fetch with a cookie jar per host, following redirects by hand so that a
// test can stop at Lethe's callback and tamper with it.
export class TestBrowser {
  readonly #jars = new Map<string, Map<string, string>>();

  #jar(url: URL): Map<string, string> {
    let jar = this.#jars.get(url.host);
    if (!jar) {
      jar = new Map();
      this.#jars.set(url.host, jar);
    }
    return jar;
  }

  /** One request, no redirect followed; cookies sent and kept. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.#jar(target);
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(target, { ...init, headers, redirect: 'manual' });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(cookie) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  /** Follows redirects from `url` until one points at an address `stopAt` accepts; that address. */
  async followUntil(url: string, stopAt: (next: URL) => boolean): Promise<URL> {
    let current = new URL(url);
    for (let hop = 0; hop < 20; hop += 1) {
      const response = await this.request(current.toString());
      const body = await response.text();
      const location = response.headers.get('location');
      if (!location || response.status < 300 || response.status >= 400) {
        throw new Error(`${current} answered ${response.status} without a redirect: ${body.slice(0, 300)}`);
      }
      current = new URL(location, current);
      if (stopAt(current)) return current;
    }
    throw new Error('too many redirects');
  }
}
