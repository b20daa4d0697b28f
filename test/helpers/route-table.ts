// Fastify's own route table, read from app.printRoutes({ commonPrefix: false, includeHooks: true }): every
// method and full path, with the scope its authorize() hook requires (the hook is named
// `authorize(<scope>)`). Tests walk it so that a route added later is covered without editing a list.
import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
  /** The scope of the route's authorize() hook; `any token` when it needs only a valid token; undefined when unguarded. */
  scope: string | undefined;
}

const TREE_CHARACTERS = new Set(['│', '├', '└', '─', ' ']);
const ON_REQUEST = '• (onRequest) ';

export function routeTable(app: FastifyInstance): RouteEntry[] {
  const lines = app.printRoutes({ commonPrefix: false, includeHooks: true }).split('\n');
  const pathAtDepth: string[] = [];
  const routes: RouteEntry[] = [];
  let current: RouteEntry[] = [];
  for (const line of lines) {
    let start = 0;
    while (start < line.length && TREE_CHARACTERS.has(line[start] as string)) start += 1;
    const rest = line.slice(start);
    if (rest.startsWith(ON_REQUEST)) {
      const names = JSON.parse(rest.slice(ON_REQUEST.length)) as string[];
      const guard = names.map((name) => /^authorize\((.+)\)\(\)$/.exec(name)?.[1]).find(Boolean);
      for (const route of current) route.scope = guard;
      continue;
    }
    const open = rest.lastIndexOf(' (');
    if (rest.startsWith('•') || open < 0 || !rest.endsWith(')')) continue;
    // A node's segment starts one level (4 characters) past its parent's, with or without a connector.
    const depth = start / 4 - 1;
    const url = `${depth > 0 ? pathAtDepth[depth - 1] : ''}${rest.slice(0, open)}`;
    pathAtDepth[depth] = url;
    pathAtDepth.length = depth + 1;
    current = rest
      .slice(open + 2, -1)
      .split(', ')
      .map((method) => ({ method, url, scope: undefined }));
    routes.push(...current);
  }
  return routes;
}

/**
 * The guarded routes that change something under a scope (POST /v1/logout, which any valid token may call
 * to end itself, is left out): each under /v1, and a route under /api/v1 or bare only when
 * it has no /v1 twin (the aliases share the /v1 handlers; Fides' own paths answer only under /api/v1).
 */
export function managementWriteRoutes(app: FastifyInstance): RouteEntry[] {
  const writes = routeTable(app).filter(
    (route) =>
      route.scope !== undefined && route.scope !== 'any token' && !['GET', 'HEAD'].includes(route.method),
  );
  const documented = new Set(
    writes.filter((route) => route.url.startsWith('/v1/')).map((route) => `${route.method} ${route.url}`),
  );
  const twin = (route: RouteEntry) =>
    `${route.method} /v1${route.url.startsWith('/api/v1/') ? route.url.slice('/api/v1'.length) : route.url}`;
  return writes.filter((route) => route.url.startsWith('/v1/') || !documented.has(twin(route)));
}

/** A concrete path for a route pattern: each `:param` becomes `value`. */
export function fillPath(url: string, value = 'x'): string {
  return url.replace(/:[\w-]+/g, value);
}
