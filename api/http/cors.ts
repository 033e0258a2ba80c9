import type { Context } from 'koa';

/**
 * Answers a CORS preflight for a path open to every origin (bearer tokens or none, never a cookie,
 * so no `Allow-Credentials`): 204 with the methods and request headers it takes, cached 10 minutes.
 */
export function answerPreflight(ctx: Context, methods: readonly string[], requestHeaders: readonly string[]): void {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', methods.join(', '));
  ctx.set('Access-Control-Allow-Headers', requestHeaders.join(', '));
  ctx.set('Access-Control-Max-Age', '600');
  ctx.status = 204;
}
