import type { Knex } from 'knex';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics: the API and the worker each run in a process of their own, so
 * each has its own registry (`npm start` runs both in one, and one registry shows both).
 */
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

export const httpRequests = new Counter({
  name: 'svc_http_requests_total',
  help: 'HTTP requests answered, by route template (never the raw path), method and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'Time from a request to its handler returning (a streamed body is not waited for), by route, method and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const applies = new Counter({
  name: 'svc_applies_total',
  help: 'Applies that ended: applied (committed) or rejected, with the error code of a rejection.',
  labelNames: ['outcome', 'code'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'svc_webhook_attempts_total',
  help: 'Webhook and inbox delivery attempts (POSTs), by outcome: delivered (2xx) or failed (anything else).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const webhookFailures = new Counter({
  name: 'svc_webhook_deliveries_failed_total',
  help: 'Deliveries given up after their retry window (the receiver never answered 2xx).',
  registers: [registry],
});

export const workflowStarts = new Counter({
  name: 'svc_workflow_starts_total',
  help: 'Workflow start requests to Temporal (start and signal-with-start; joining a running one counts), by workflow type and outcome.',
  labelNames: ['workflow', 'outcome'] as const,
  registers: [registry],
});

export const mailAttemptFailures = new Counter({
  name: 'svc_mail_attempt_failures_total',
  help: 'SMTP sends that failed (retried unless refused for good), by mail purpose.',
  labelNames: ['purpose'] as const,
  registers: [registry],
});

export const mailFailures = new Counter({
  name: 'svc_mail_failures_total',
  help: 'Mails marked failed for good (retries spent or refused by the relay), by mail purpose.',
  labelNames: ['purpose'] as const,
  registers: [registry],
});

/** The knex pools of this process, read on each scrape; one gone (destroyed or collected) drops out. */
const pools = new Set<WeakRef<Knex>>();

interface PoolCounts {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

function poolGauge(name: string, help: string, count: (pool: PoolCounts) => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      let total = 0;
      for (const ref of pools) {
        const pool = (ref.deref()?.client as { pool?: PoolCounts } | undefined)?.pool;
        if (pool) total += count(pool);
        else if (!ref.deref()) pools.delete(ref);
      }
      this.set(total);
    },
  });
}

poolGauge('svc_db_pool_used', 'Database connections checked out of the pool.', (pool) => pool.numUsed());
poolGauge('svc_db_pool_free', 'Idle database connections in the pool.', (pool) => pool.numFree());
poolGauge('svc_db_pool_pending_acquires', 'Queries waiting for a database connection.', (pool) => pool.numPendingAcquires());

/** Shows this database's connection pool in the svc_db_pool_* gauges. */
export function trackPool(db: Knex): void {
  pools.add(new WeakRef(db));
}
