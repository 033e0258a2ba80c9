import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { cachedHealth } from '../../activities/health/health';
import type { Services } from '../../activities/services';
import { errors, retryAfter } from '../../lib/errors';
import { t } from '../../lib/i18n';
import { addressKey } from '../../lib/request-limits';
import type { Routes } from '../http/route';
import { buildOpenApi } from '../openapi/document';
import { presentHealth } from './presenter';
import { HealthResponseSchema, OpenApiResponseSchema } from './schema';

export const VERSION = '0.3.0';

export function systemRoutes(routes: Routes, deps: Services): void {
  // Health is open and probed often: its answer is shared for a second (one database query and one
  // Temporal call a second at most), and each address may ask SVC_HEALTH_LIMIT_PER_IP times a minute,
  // counted in this process (a count in the database would cost what the cache saves).
  const health = cachedHealth(deps);
  const perAddress = deps.config.healthPerIp > 0 ? new RateLimiterMemory({ points: deps.config.healthPerIp, duration: 60 }) : undefined;
  routes.add(
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Whether the database, Temporal and a worker are reachable',
      tag: 'System',
      auth: 'none',
      response: HealthResponseSchema,
      errors: ['rate_limited', 'service_unavailable'],
    },
    async (ctx) => {
      if (perAddress) {
        const refused = await perAddress.consume(addressKey(ctx.ip)).then(
          () => undefined,
          (outcome: unknown) => {
            if (outcome instanceof RateLimiterRes) return outcome;
            throw outcome;
          },
        );
        if (refused) {
          const rate = `${deps.config.healthPerIp} health checks per minute`;
          throw errors.rateLimited(
            t('errors.system.too_many_health_checks_from', { rate }),
            [{ path: 'health_per_address', message: `at most ${rate}` }],
            retryAfter(refused.msBeforeNext),
          );
        }
      }
      const report = await health();
      if (report.status === 'unavailable') ctx.status = 503;
      return presentHealth(report);
    },
  );
  routes.add(
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This OpenAPI 3.1 document',
      tag: 'System',
      auth: 'none',
      response: OpenApiResponseSchema,
    },
    async () => buildOpenApi(routes.registered, { serverUrl: deps.config.publicUrl, version: VERSION }),
  );
}
