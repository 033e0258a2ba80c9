import { context, type Link, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, Next } from 'koa';
import type { Tracing } from '../../lib/tracing';
import { routeLabel } from './metrics';

/**
 * A caller's W3C `traceparent`, as a link: the caller's trace and ours can be joined in the
 * backend, yet a public client neither picks our trace ids nor turns our sampling off with its flags.
 */
function callerLinks(ctx: Context): Link[] {
  const traceparent = ctx.get('traceparent');
  if (!traceparent) return [];
  const caller = trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent }));
  return caller && trace.isSpanContextValid(caller) ? [{ context: caller }] : [];
}

/**
 * One server span per request, the root of what the request causes (the Temporal client's spans
 * and, through the workflow's headers, the workflow's and its activities'). Its name and
 * `http.route` are the route template (`HTTP POST /v1/documents/:id/sign`), never the path: sign,
 * claim and download paths carry tokens. Mounted only when tracing is on.
 */
export function traceRequests(tracing: Tracing) {
  return async (ctx: Context, next: Next) => {
    const span = tracing.tracer.startSpan(
      `HTTP ${ctx.method}`,
      { kind: SpanKind.SERVER, links: callerLinks(ctx), attributes: { 'http.method': ctx.method } },
      ROOT_CONTEXT,
    );
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), next);
    } finally {
      // After the error middleware (mounted below this one) has turned a throw into its status.
      const route = routeLabel(ctx);
      span.updateName(`HTTP ${ctx.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.status_code': ctx.status, 'svc.request_id': ctx.state.requestId });
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
