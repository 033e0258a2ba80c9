import { z } from 'zod';
import { checkHealth } from '../../activities/health/health';
import type { Services } from '../../lib/services';
import type { Routes } from '../http/route';
import { buildOpenApi } from '../openapi/document';

const Component = z.object({ ok: z.boolean(), latency_ms: z.number() });

export const HealthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']).meta({
    description:
      '`ok`: database, Temporal and a worker answer. `degraded`: no worker polls the task queue. `unavailable` (503): the database or Temporal is unreachable.',
  }),
  database: Component.extend({ driver: z.enum(['postgres', 'pglite']) }),
  temporal: Component.extend({ namespace: z.string() }),
  worker: z.object({ ok: z.boolean(), task_queue: z.string(), pollers: z.number().int() }),
});

export const VERSION = '0.1.0';

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
      ctx.status = report.status === 'unavailable' ? 503 : 200;
      ctx.body = report;
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
      response: z.record(z.string(), z.unknown()),
    },
    async () => buildOpenApi(routes.registered, { serverUrl: deps.config.publicUrl, version: VERSION }),
  );
}
