import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import Router from '@koa/router';
import Koa, { type Context, type Next } from 'koa';
import type { Services } from '../activities/services';
import { errors } from '../lib/errors';
import { t } from '../lib/i18n';
import { withLogContext } from '../lib/log';
import { devMailRoutes } from './app/dev-mail';
import { fileRoutes } from './app/files';
import { appRoutes } from './app/router';
import { appSession } from './app/session';
import { signRoutes } from './app/sign/router';
import { staticRoutes } from './app/static';
import { bulkRoutes } from './bulk/router';
import { contactRoutes } from './contacts/router';
import { renderErrorsPage } from './docs/errors-page';
import { documentAuditRoutes } from './documents/audit';
import { documentRoutes } from './documents/router';
import { driveRoutes } from './drive/router';
import { bearerCaller, bearerChallenge } from './http/auth';
import { readJsonBody } from './http/body';
import { answerPreflight } from './http/cors';
import { errorMiddleware } from './http/errors-middleware';
import { requestLocale } from './http/locale';
import { type McpCaller, mcpLoopbackCaller } from './http/mcp-caller';
import { metricsEndpoint, observeRequest } from './http/metrics';
import { rateLimit } from './http/rate-limit';
import { loggablePath } from './http/redact';
import { Routes } from './http/route';
import { SegmentRouter } from './http/segment-router';
import { traceRequests } from './http/tracing';
import { storableUrl } from './http/url-text';
import { mandateRoutes } from './mandates/router';
import { meRoutes } from './me/router';
import { oauthRoutes } from './oauth/router';
import { offerRoutes } from './offers/router';
import { signingRoutes } from './signing/router';
import { systemRoutes } from './system/router';
import { wellKnownRoutes } from './system/well-known';
import { templateRoutes } from './templates/router';
import { transferRoutes } from './transfers/router';
import { verifyRoutes } from './verify/router';
import { webhookRoutes } from './webhooks/router';

function requestContext(deps: Services) {
  const log = deps.log.child({ component: 'api' });
  // The level is fixed for the process: a request line that would not be written is not built either.
  const debug = log.enabled?.('debug') ?? true;
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    ctx.state.requestId = randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    ctx.set('X-Content-Type-Options', 'nosniff');
    // same-origin: never leak URLs (sign and confirm links carry tokens) to other sites, yet let our own forms carry their Origin.
    ctx.set('Referrer-Policy', 'same-origin');
    try {
      // Every line logged while the request runs, in any callee, carries its request_id.
      await withLogContext({ request_id: ctx.state.requestId }, next);
    } finally {
      observeRequest(ctx, started);
      if (debug)
        log.debug('request', {
          request_id: ctx.state.requestId,
          method: ctx.method,
          path: loggablePath(ctx.path),
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        });
    }
  };
}

/** 404 for unknown /v1 paths, 405 (with Allow) for a known path called with another method. */
function unmatched(router: Pick<SegmentRouter, 'match'>) {
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return;
    if (!ctx.path.startsWith('/v1/') && ctx.path !== '/v1') return;
    const matched = router.match(ctx.path, ctx.method);
    if (!matched.route && matched.path.length > 0) {
      const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))].filter((method) => method !== 'HEAD');
      throw errors.methodNotAllowed(t('errors.http.path_takes', { methods: allowed.join(', ') }), undefined, { Allow: allowed.join(', ') });
    }
    throw errors.notFound(t('errors.http.no_such_endpoint', { method: ctx.method, path: ctx.path }));
  };
}

/**
 * A surface the composition root mounts on the service's HTTP listener besides the REST API (the
 * MCP server at /mcp): it answers the request itself, after the JSON body was read under the limit.
 */
export interface MountedSurface {
  path: string;
  /** Only for a valid API key: anything else (tools/list included) is answered 401 with a Bearer challenge here. */
  requiresKey?: boolean;
  /**
   * Open to scripts of any origin (CORS), as a browser-based client needs: the surface takes only a
   * bearer token, never a cookie, so a page can do nothing there that its own token does not allow.
   */
  cors?: { methods: string[]; requestHeaders: string[]; exposedHeaders: string[] };
  /** `caller`: the request's client address (`ctx.ip`, under SVC_TRUST_PROXY) and User-Agent, for the calls the surface makes for it. */
  handle(request: IncomingMessage, response: ServerResponse, body: unknown, caller: McpCaller): Promise<void>;
}

function mountSurfaces(surfaces: MountedSurface[], deps: Services) {
  return async (ctx: Context, next: Next) => {
    const surface = surfaces.find((candidate) => candidate.path === ctx.path);
    if (!surface) return next();
    ctx.state.route = surface.path;
    if (surface.cors) {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.set('Access-Control-Expose-Headers', surface.cors.exposedHeaders.join(', '));
      if (ctx.method === 'OPTIONS') return answerPreflight(ctx, surface.cors.methods, surface.cors.requestHeaders);
    }
    if (surface.requiresKey && !(await bearerCaller(ctx, deps))) {
      const given = Boolean(ctx.get('authorization'));
      throw errors.unauthorized(given ? t('errors.http.token_unknown') : t('errors.http.send_api_key'), undefined, {
        'WWW-Authenticate': bearerChallenge(ctx, deps),
      });
    }
    const body = ctx.method === 'POST' ? await readJsonBody(ctx, deps.config.jsonLimitBytes) : undefined;
    ctx.respond = false;
    await surface.handle(ctx.req, ctx.res, body, { ip: ctx.ip, userAgent: ctx.get('user-agent') });
  };
}

/** The path part of SVC_APP_URL, where the app's pages are mounted. */
export function appPath(appUrl: string): string {
  return new URL(appUrl).pathname.replace(/\/$/, '');
}

/** The Koa application: the /v1 API, the principal app pages and the error documentation page. */
export function createApp(deps: Services, options: { surfaces?: MountedSurface[] } = {}) {
  // Behind proxies, the client is the entry the outermost trusted proxy added: the rightmost
  // SVC_PROXY_HOPS entries of X-Forwarded-For are theirs, anything left of them the client wrote.
  const app = new Koa({ proxy: deps.config.trustProxy, maxIpsCount: deps.config.proxyHops });
  const v1 = new SegmentRouter('/v1');
  const routes = new Routes(v1, deps);

  systemRoutes(routes, deps);
  meRoutes(routes, deps);
  mandateRoutes(routes, deps);
  signingRoutes(routes, deps);
  documentRoutes(routes, deps);
  bulkRoutes(routes, deps);
  documentAuditRoutes(routes, deps);
  templateRoutes(routes, deps);
  contactRoutes(routes, deps);
  offerRoutes(routes, deps);
  webhookRoutes(routes, deps);
  driveRoutes(routes, deps);
  transferRoutes(routes, deps);
  verifyRoutes(routes, deps);

  const mount = appPath(deps.config.appUrl);
  const pages = new Router();
  wellKnownRoutes(pages, deps);
  pages.get('/docs/errors', (ctx) => {
    ctx.type = 'html';
    ctx.body = renderErrorsPage();
  });
  // With the app at the root of its host, `/` is the app's overview, not this banner.
  if (mount) {
    pages.get('/', (ctx) => {
      ctx.body = { name: 'Agents API', openapi: `${deps.config.publicUrl}/v1/openapi.json`, app: deps.config.appUrl };
    });
  }
  pages.use(appSession(deps, mount));
  oauthRoutes(pages, deps, mount);
  appRoutes(pages, deps, mount);
  fileRoutes(pages, deps);
  staticRoutes(pages);
  devMailRoutes(pages, deps);
  signRoutes(pages, deps, mount);

  // What escapes the error middleware (a client gone mid-response, a request Node cannot parse) is
  // logged as JSON like the rest, not printed by Koa's default handler.
  app.on('error', (error: Error, ctx?: Context) => {
    deps.log
      .child({ component: 'api' })
      .debug('request error after the response began', { path: ctx ? loggablePath(ctx.path) : undefined, error: error.message });
  });
  app.use(requestContext(deps));
  app.use(requestLocale(deps.config));
  if (deps.tracing) app.use(traceRequests(deps.tracing));
  app.use(errorMiddleware({ docsUrl: deps.config.docsUrl, log: deps.log.child({ component: 'api' }) }));
  // Without a token /metrics is not served on this listener at all (404): no middleware to pass through.
  if (deps.config.metrics.token) app.use(metricsEndpoint(deps.config.metrics.token));
  app.use(storableUrl([...v1.all(), pages]));
  // Before anything reads the client: an MCP tool's loopback call counts and is audited as its caller.
  app.use(mcpLoopbackCaller());
  app.use(rateLimit(deps));
  if (options.surfaces?.length) app.use(mountSurfaces(options.surfaces, deps));
  app.use(unmatched(v1));
  app.use(v1.routes());
  app.use(pages.routes());
  return { app, routes };
}
