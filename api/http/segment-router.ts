import Router, { type MatchResult } from '@koa/router';
import type { Context, Next } from 'koa';

/** What the routers found for a path: the layers of that path, and whether one takes the method. */
export type RouteMatch = MatchResult;

/** A place routes are registered on: one router for every path, or a router per first segment. */
export interface RouteTable {
  /** The router a route of `path` (under the prefix, e.g. `/documents/:id`) is registered on. */
  routerFor(path: string): Router;
}

/**
 * The /v1 routes as one router per first path segment (`/documents/...`, `/templates/...`), under
 * one prefix: a request is matched only against the routes of its own segment, not against every
 * route of the API (@koa/router tests each registered pattern in turn: about 120 here, a few
 * microseconds on every request). Paths outside the prefix, or of a segment no route has, pass on.
 * Every route's first segment is a literal (none starts with a parameter), which the registration checks.
 */
export class SegmentRouter implements RouteTable {
  private readonly routers = new Map<string, { router: Router; dispatch: ReturnType<Router['routes']> }>();

  constructor(readonly prefix: string) {}

  routerFor(path: string): Router {
    const segment = firstSegment(path).toLowerCase();
    if (segment.startsWith(':') || segment.includes('*') || segment.includes('('))
      throw new Error(`${path}: a /v1 route's first segment must be a literal, to be routed by it`);
    let entry = this.routers.get(segment);
    if (!entry) {
      const router = new Router({ prefix: this.prefix });
      entry = { router, dispatch: router.routes() };
      this.routers.set(segment, entry);
    }
    return entry.router;
  }

  /** Every router, for what looks at all of them (the URL text check). */
  all(): Router[] {
    return [...this.routers.values()].map((entry) => entry.router);
  }

  /** The segment's router for a request path, when the path is under the prefix and a route has that segment. */
  private routerOf(requestPath: string) {
    // As the routers match: not case-sensitive.
    const head = requestPath.slice(0, this.prefix.length + 1).toLowerCase();
    if (head !== `${this.prefix}/` && head !== this.prefix) return undefined;
    return this.routers.get(firstSegment(requestPath.slice(this.prefix.length)).toLowerCase());
  }

  /** As Router.match, over the routes of the path's segment. */
  match(requestPath: string, method: string): RouteMatch {
    return this.routerOf(requestPath)?.router.match(requestPath, method) ?? { path: [], pathAndMethod: [], route: false };
  }

  /** The middleware: the request goes to its segment's router, or on. */
  routes() {
    return (ctx: Context, next: Next) => {
      const entry = this.routerOf(ctx.path);
      return entry ? entry.dispatch(ctx as never, next) : next();
    };
  }
}

/** `/documents/:id/sign` → `documents`; `/` or `` → ``. */
function firstSegment(path: string): string {
  const rest = path.startsWith('/') ? path.slice(1) : path;
  const end = rest.indexOf('/');
  return end === -1 ? rest : rest.slice(0, end);
}
