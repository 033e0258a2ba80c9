import { checkHealth } from '../../activities/health/health';
import type { Services } from '../../lib/services';
import type { Routes } from '../http/route';
import { buildOpenApi } from '../openapi/document';
import { presentHealth } from './presenter';
import { HealthResponseSchema, OpenApiResponseSchema } from './schema';

export const VERSION = '0.3.0';

export function systemRoutes(routes: Routes, deps: Services): void {
  routes.add(
    {
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Whether the database, Temporal and a worker are reachable',
      tag: 'System',
      auth: 'none',
      response: HealthResponseSchema,
      errors: ['service_unavailable'],
    },
    async (ctx) => {
      const report = await checkHealth(deps);
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
