// Cross-site form posts to the privacy center: a page elsewhere must not make a visitor's browser submit,
// verify or resend (each sends a mail). A POST is refused (403, nothing done, nothing sent) when its
// `Sec-Fetch-Site` is anything but `same-origin` or `none`, or its `Origin` is neither LETHE_PUBLIC_URL's
// origin nor the origin the request itself was made to (scheme and Host). A request with neither header
// (curl, a server calling the API) is not a browser's cross-site post and goes on. `Origin: null` is
// refused unless `Sec-Fetch-Site` says same-origin: Chromium sends null on a same-origin form post under
// the `Referrer-Policy: no-referrer` the API answers with, which is why the pages send `same-origin`.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { forbidden } from '../errors.ts';

const SAME_SITE_FETCHES = new Set(['same-origin', 'none']);

function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** Why the request is a cross-site post (a sentence for the 403), or undefined when it is not. */
export function crossSiteProblem(
  request: FastifyRequest,
  config: Pick<Config, 'publicUrl'>,
): string | undefined {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string' && !SAME_SITE_FETCHES.has(fetchSite.trim().toLowerCase()))
    return 'Cross-site requests to the privacy center are refused; use the privacy center page itself.';
  const origin = request.headers.origin?.trim();
  if (origin === undefined) return undefined;
  // A browser that vouches for a same-origin fetch may still hide its origin ("null") when the page's
  // referrer policy is no-referrer; an origin it does name must be ours.
  if (fetchSite !== undefined && origin === 'null') return undefined;
  const own = new Set(
    [originOf(config.publicUrl), originOf(`${request.protocol}://${request.host}`)].filter(
      (candidate): candidate is string => candidate !== undefined,
    ),
  );
  if (!own.has(origin))
    return 'Requests from another origin to the privacy center are refused; use the privacy center page itself.';
  return undefined;
}

/** onRequest hook of the public JSON posts: 403 `{detail}` for a cross-site post. */
export function refuseCrossSite(config: Pick<Config, 'publicUrl'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const problem = crossSiteProblem(request, config);
    if (problem) throw forbidden(problem);
  };
}
