// lethe/client: a typed client for Lethe's API, openapi-fetch over the types openapi-typescript generates
// from the served document (lethe-api.d.ts, made by generate.ts). Plain JavaScript with its declarations
// beside it (index.d.ts), so that it loads from node_modules too, where Node does not strip types.
import createClient from 'openapi-fetch';

/**
 * A client for the Lethe at `baseUrl` ('' for the same origin in a browser). `token` is a management
 * access token (createAccessToken or login); it is sent as a bearer on every call.
 */
export function createLetheClient({ baseUrl, token, headers, fetch }) {
  return createClient({
    baseUrl,
    fetch,
    headers: { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  });
}
