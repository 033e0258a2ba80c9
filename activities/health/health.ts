import protos from '@temporalio/proto';
import type { Db, DbDriver } from '../../db/connect';
import type { TemporalDeps } from '../../lib/temporal';
import type { Services } from '../services';

export interface ComponentHealth {
  ok: boolean;
  latency_ms: number;
}

export interface HealthReport {
  status: 'ok' | 'degraded' | 'unavailable';
  database: ComponentHealth & { driver: DbDriver };
  temporal: ComponentHealth & { namespace: string };
  worker: { ok: boolean; task_queue: string; pollers: number };
}

const CHECK_TIMEOUT_MS = 3000;

async function timed(check: () => Promise<unknown>): Promise<ComponentHealth> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    const pending = check();
    // A check abandoned at the timeout may still fail later (e.g. when its connection closes).
    pending.catch(() => undefined);
    await Promise.race([
      pending,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { ok: true, latency_ms: Math.round(performance.now() - started) };
  } catch {
    return { ok: false, latency_ms: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

export async function pingDatabase(db: Db): Promise<string> {
  const result = await db.raw('select now() as now');
  return new Date(result.rows[0].now).toISOString();
}

async function workflowPollers(temporal: TemporalDeps): Promise<number> {
  const deadline = Date.now() + CHECK_TIMEOUT_MS;
  const response = await temporal.probe.withDeadline(deadline, () =>
    temporal.probe.workflowService.describeTaskQueue({
      namespace: temporal.namespace,
      taskQueue: { name: temporal.taskQueue, kind: protos.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    }),
  );
  return response.pollers?.length ?? 0;
}

/**
 * The health report at most once per `ttlMs` per process: callers within a second share one check
 * (and one in flight), so however often /v1/health is called it costs at most one database query
 * and one Temporal call a second.
 */
export function cachedHealth(deps: Pick<Services, 'db' | 'dbDriver' | 'temporal' | 'log'>, ttlMs = 1000): () => Promise<HealthReport> {
  let current: { report: Promise<HealthReport>; until: number } | undefined;
  return () => {
    const now = Date.now();
    if (current && now < current.until) return current.report;
    const report = checkHealth(deps);
    // Fresh for ttlMs from when it is answered (until then, callers join the check in flight).
    const entry = { report, until: Number.POSITIVE_INFINITY };
    current = entry;
    report.then(
      () => {
        entry.until = Date.now() + ttlMs;
      },
      () => {
        if (current === entry) current = undefined;
      },
    );
    return report;
  };
}

/**
 * Reachability of the database and Temporal, and whether any worker polls the task queue. Only
 * yes/no and timings are reported: the endpoint is open, so no addresses or error texts leave it.
 */
export async function checkHealth(deps: Pick<Services, 'db' | 'dbDriver' | 'temporal' | 'log'>): Promise<HealthReport> {
  const { temporal } = deps;
  let pollers = 0;
  const [database, temporalHealth] = await Promise.all([
    timed(() => pingDatabase(deps.db)),
    timed(async () => {
      pollers = await workflowPollers(temporal);
    }),
  ]);
  if (!database.ok || !temporalHealth.ok) deps.log.warn('health check failed', { database: database.ok, temporal: temporalHealth.ok });
  const worker = { ok: pollers > 0, task_queue: temporal.taskQueue, pollers };
  const status = !database.ok || !temporalHealth.ok ? 'unavailable' : worker.ok ? 'ok' : 'degraded';
  return {
    status,
    database: { ...database, driver: deps.dbDriver },
    temporal: { ...temporalHealth, namespace: temporal.namespace },
    worker,
  };
}

/** Activities of the ping workflow: proves a workflow reaches the worker and the worker the database. */
export function createHealthActivities(deps: { db: Db }) {
  return {
    async pingDatabase(): Promise<string> {
      return pingDatabase(deps.db);
    },
  };
}
export type HealthActivities = ReturnType<typeof createHealthActivities>;
