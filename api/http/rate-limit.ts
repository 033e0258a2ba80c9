import type { Context, Next } from 'koa';
import type { Services } from '../../activities/services';
import { errors, retryAfter } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { createRequestLimits, type RequestCount } from '../../lib/request-limits';
import { bearerCaller } from './auth';

/** Paths no limit counts: probes and scrapes (health, metrics) and the pages' static files. */
export function exemptFromRateLimits(path: string): boolean {
  return path === '/v1/health' || path === '/metrics' || path.startsWith('/static/');
}

/** The limit in words: "100 requests per minute", "5 requests per 10 seconds" (errors.http.rate). */
export function rateWords(limit: number, windowMs: number): string {
  return t('errors.http.rate', { limit, seconds: windowMs / 1000 });
}

function headersOf(count: RequestCount): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(count.limit),
    'X-RateLimit-Remaining': String(count.remaining),
    // Unix seconds, as GitHub's API sends it; Retry-After on a refusal gives the wait in seconds.
    'X-RateLimit-Reset': String(Math.ceil((Date.now() + count.resetMs) / 1000)),
  };
}

function refusal(count: RequestCount, windowMs: number) {
  const rate = rateWords(count.limit, windowMs);
  const message =
    count.name === 'requests_per_key'
      ? t('errors.http.too_many_requests_key', { rate })
      : t('errors.http.too_many_requests_address', { rate });
  return errors.rateLimited(message, [{ path: count.name, message: t('errors.http.at_most', { rate }) }], retryAfter(count.resetMs));
}

/**
 * The general request limits (issue 14): a request with a valid API key counts against that key
 * (its id), any other one against its client address (ctx.ip, so SVC_TRUST_PROXY decides whether
 * X-Forwarded-For is read). Every counted answer carries X-RateLimit-*; past the limit it is 429
 * `rate_limited` naming the limit in `details`, so it reads apart from the L2 cap and the code limits.
 * Counted in memory and reconciled with the shared counters every SVC_RATE_LIMIT_SYNC_MS (lib/request-limits.ts).
 */
export function rateLimit(deps: Services) {
  const { perKey, perIp, windowMs } = deps.config.rateLimits;
  const settings = { ...deps.config.rateLimits, syncMs: deps.config.durations.rateLimitSyncMs };
  const limits = createRequestLimits(deps.db, settings, deps.log.child({ component: 'api' }));
  return async (ctx: Context, next: Next) => {
    if ((perKey === 0 && perIp === 0) || exemptFromRateLimits(ctx.path)) return next();
    // A key the database cannot check now counts by address; the route's authentication then meets the same failure.
    const caller = await bearerCaller(ctx, deps)?.catch(() => undefined);
    const counted = caller ? limits.countKey(caller.apiKey.id) : limits.countAddress(ctx.ip);
    const count = counted instanceof Promise ? await counted : counted;
    if (count) {
      ctx.set(headersOf(count));
      if (!count.allowed) throw refusal(count, windowMs);
    }
    await next();
  };
}
