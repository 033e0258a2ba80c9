import type { HealthReport } from '../../activities/health/health';
import type { HealthResponse } from './schema';

/** Yes/no and timings only: the endpoint is open, so no address or error text leaves it. */
export function presentHealth(report: HealthReport): HealthResponse {
  const { database, temporal, worker } = report;
  return {
    status: report.status,
    database: { ok: database.ok, latency_ms: database.latency_ms, driver: database.driver },
    temporal: { ok: temporal.ok, latency_ms: temporal.latency_ms, namespace: temporal.namespace },
    worker: { ok: worker.ok, task_queue: worker.task_queue, pollers: worker.pollers },
  };
}
