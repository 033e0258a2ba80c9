import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import type { Config } from './config/config';
import { errors } from './errors';
import { t } from './i18n';
import type { Logger } from './log';
import { workflowStarts } from './metrics';
import type { Tracing } from './tracing';

export interface TemporalDeps {
  address: string;
  namespace: string;
  taskQueue: string;
  connection: Connection;
  client: Client;
  /** For health checks: no retry interceptor, so an unreachable server answers at once, not after retries. */
  probe: Connection;
  /** Where bestEffort says why a wake-up failed. */
  log?: Logger;
}

async function countedStart<T>(workflow: string, start: () => Promise<T>): Promise<T> {
  try {
    const started = await start();
    workflowStarts.inc({ workflow, outcome: 'started' });
    return started;
  } catch (error) {
    workflowStarts.inc({ workflow, outcome: 'failed' });
    throw error;
  }
}

/** Every workflow start and signal-with-start of this process, counted in svc_workflow_starts_total. */
const countStarts: WorkflowClientInterceptor = {
  startWithDetails: (input, next) => countedStart(input.workflowType, () => next(input)),
  signalWithStart: (input, next) => countedStart(input.workflowType, () => next(input)),
};

/**
 * A lazy client connection: the API starts even while Temporal is down, and health reports it.
 * With tracing on, starts, signals and updates carry the caller's trace into the workflow's headers.
 */
export function connectTemporal(config: Config, address: string, tracing?: Tracing, log?: Logger): TemporalDeps {
  const connection = Connection.lazy({ address });
  return {
    address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    connection,
    client: new Client({
      connection,
      namespace: config.temporal.namespace,
      interceptors: { workflow: tracing ? [tracing.clientInterceptor, countStarts] : [countStarts] },
    }),
    probe: Connection.lazy({ address, interceptors: [], connectTimeout: 3000 }),
    log: log?.child({ component: 'temporal' }),
  };
}

// gRPC status codes that mean "not reachable now": CANCELLED, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE.
const UNAVAILABLE = new Set([1, 4, 8, 10, 14]);

function isUnreachable(error: unknown): boolean {
  for (
    let cause = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    cause && depth < 5;
    cause = cause.cause as typeof cause, depth += 1
  ) {
    if (typeof cause.code === 'number' && UNAVAILABLE.has(cause.code)) return true;
  }
  return false;
}

/**
 * One call to Temporal from a request: bounded by SVC_TEMPORAL_CALL_TIMEOUT_MS, and answered as 503
 * service_unavailable when Temporal cannot be reached (never a 500, never a request left hanging).
 */
export async function temporalCall<T>(temporal: TemporalDeps, config: Config, call: () => Promise<T>): Promise<T> {
  try {
    return await temporal.connection.withDeadline(Date.now() + config.durations.temporalCallMs, call);
  } catch (error) {
    if (isUnreachable(error)) throw errors.serviceUnavailable(t('errors.services.temporal_unreachable'));
    throw error;
  }
}

/**
 * A wake-up whose failure only delays what it would speed up (a signal the workflow also finds out
 * without, at its next look or its deadline): never thrown, and logged at debug with what it was and
 * why it failed, so a Temporal outage leaves a trail instead of silence.
 */
export async function bestEffort(temporal: Pick<TemporalDeps, 'log'>, what: string, call: () => Promise<unknown>): Promise<void> {
  try {
    await call();
  } catch (error) {
    temporal.log?.debug('best-effort call failed', { what, error: (error as Error)?.message ?? String(error) });
  }
}
