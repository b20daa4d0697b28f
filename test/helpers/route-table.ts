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

const NODE = /^(?<indent>(?:[│ ] {3})*)(?:[├└]── )?(?<segment>.+?) \((?<methods>[A-Z, ]+)\)$/;
const HOOKS = /^(?:[│ ] {3})*• \(onRequest\) (?<names>\[.*\])$/;

export function routeTable(app: FastifyInstance): RouteEntry[] {
  const lines = app.printRoutes({ commonPrefix: false, includeHooks: true }).split('\n');
  const pathAtDepth: string[] = [];
  const routes: RouteEntry[] = [];
  let current: RouteEntry[] = [];
  for (const line of lines) {
    const node = NODE.exec(line);
    if (node?.groups) {
      const { indent = '', segment = '', methods = '' } = node.groups;
      const connector = /[├└]── /.test(line);
      const depth = indent.length / 4 - (connector ? 0 : 1);
      const url = `${depth > 0 ? pathAtDepth[depth - 1] : ''}${segment}`;
      pathAtDepth[depth] = url;
      pathAtDepth.length = depth + 1;
      current = methods.split(', ').map((method) => ({ method, url, scope: undefined }));
      routes.push(...current);
      continue;
    }
    const hooks = HOOKS.exec(line);
    if (hooks?.groups) {
      const names = JSON.parse(hooks.groups.names as string) as string[];
      const guard = names.map((name) => /^authorize\((.+)\)\(\)$/.exec(name)?.[1]).find(Boolean);
      for (const route of current) route.scope = guard;
    }
  }
  return routes;
}

/**
 * The guarded routes that change something: each under /v1, and a route under /api/v1 or bare only when
 * it has no /v1 twin (the aliases share the /v1 handlers; Fides' own paths answer only under /api/v1).
 */
export function managementWriteRoutes(app: FastifyInstance): RouteEntry[] {
  const writes = routeTable(app).filter(
    (route) => route.scope !== undefined && !['GET', 'HEAD'].includes(route.method),
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
