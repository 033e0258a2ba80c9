import { z } from 'zod';

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
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const OpenApiResponseSchema = z.record(z.string(), z.unknown());
