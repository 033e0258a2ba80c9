import type { Context, Next } from 'koa';
import { errors } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { httpDuration, httpRequests } from '../../lib/metrics';
import { metricsAuthorized, metricsText } from '../../lib/metrics-server';

interface RouteLayer {
  path: string | RegExp;
  methods: string[];
}

/**
 * The route template a request matched (`/v1/documents/:id`), never its path, so no id or token
 * becomes a label; `unmatched` when no route took it. A router middleware that answered before
 * the route (a session redirect) still counts under the route.
 */
export function routeLabel(ctx: Context): string {
  if (typeof ctx.state.route === 'string') return ctx.state.route;
  const routes = ((ctx as { matched?: RouteLayer[] }).matched ?? [])
    .filter((layer) => layer.methods.includes(ctx.method))
    .map((layer) => String(layer.path));
  const chosen = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
  return chosen !== undefined && routes.includes(String(chosen)) ? String(chosen) : (routes.at(-1) ?? 'unmatched');
}

/** Counts one answered request and its time since `startedMs` (performance.now()). */
export function observeRequest(ctx: Context, startedMs: number): void {
  const labels = { method: ctx.method, route: routeLabel(ctx), status: String(ctx.status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, (performance.now() - startedMs) / 1000);
}

/**
 * GET /metrics on the public listener, only when SVC_METRICS_TOKEN is set and then only with
 * `Authorization: Bearer <token>` (401 otherwise); unset, the path does not exist (404).
 */
export function metricsEndpoint(token: string | undefined) {
  return async (ctx: Context, next: Next) => {
    if (!token || ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.state.route = '/metrics';
    if (!metricsAuthorized(ctx.get('authorization') || undefined, token)) {
      throw errors.unauthorized(t('errors.http.metrics_token_needed'), undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    const { contentType, body } = await metricsText();
    ctx.type = contentType;
    ctx.body = body;
  };
}
