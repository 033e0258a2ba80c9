import { fileURLToPath } from 'node:url';
import { WorkflowIdConflictPolicy } from '@temporalio/client';
import {
  bundleWorkflowCode,
  makeTelemetryFilterString,
  NativeConnection,
  Runtime,
  Worker,
  type WorkflowBundleOption,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import type { Services } from '../activities/services';
import { bulkTaskQueue } from '../workflows/bulk/shared';
import { labelledStarts, workLabels } from '../workflows/labels';
import type { outboxRelayWorkflow } from '../workflows/outbox/relay';
import { RELAY_WORKFLOW, relayWorkflowId } from '../workflows/webhook/shared';
import { createActivities } from './activities';
import { ensureSearchAttributes } from './search-attributes';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));
/** The workflow interceptors of tracing, in the bundle only when tracing is on. */
export const TRACING_INTERCEPTORS_PATH = fileURLToPath(new URL('../workflows/tracing.ts', import.meta.url));

let runtimeInstalled = false;

/** What the Temporal SDK warns of that is this worker's design: the bulk lane's worker runs activities only. */
const EXPECTED_WARNINGS = new Set(['No workflows registered, not polling for workflow tasks']);

/**
 * Temporal's core (the SDK's Rust half) logs through our logger, as JSON like every other line: left
 * to itself it writes coloured text straight to stderr (its "gRPC call … retried 7 times" warnings
 * when the server goes away). Warnings and errors; with LOG_LEVEL=debug also its info lines.
 */
function installRuntime(deps: Services): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const log = deps.log.child({ component: 'temporal' });
  const debug = deps.config.logLevel === 'debug';
  const at = (level: string, message: string, meta?: Record<string, unknown>) => {
    if (level === 'ERROR') log.error(message, meta);
    else if (level === 'WARN' && EXPECTED_WARNINGS.has(message)) log.debug(message, meta);
    else if (level === 'WARN') log.warn(message, meta);
    else if (debug && level === 'INFO') log.debug(message, meta);
  };
  try {
    installWithLogger(at, debug);
  } catch {
    // The process has a runtime already (npm test's batches: a workflow test installed a silent one
    // before this worker): it stays, with its logger.
  }
}

function installWithLogger(at: (level: string, message: string, meta?: Record<string, unknown>) => void, debug: boolean): void {
  Runtime.install({
    logger: {
      log: at,
      trace: () => undefined,
      debug: () => undefined,
      info: (message, meta) => at('INFO', message, meta),
      warn: (message, meta) => at('WARN', message, meta),
      error: (message, meta) => at('ERROR', message, meta),
    },
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: debug ? 'INFO' : 'WARN', other: 'ERROR' }) },
    },
  });
}

export async function bundleWorkflows(options: { tracing?: boolean } = {}): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: options.tracing ? [TRACING_INTERCEPTORS_PATH] : [],
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message) => process.stderr.write(`${message}\n`),
    },
  });
}

export interface RunningWorker {
  worker: Worker;
  /** Resolves when the worker has stopped; rejects when it failed. */
  done: Promise<void>;
  stop(): Promise<void>;
}

/** At most this long between two activities of the relay (its activity rests between looks listening for commits). */
const RELAY_WORKFLOW_REST_MS = 1000;

/** The outbox relay of this task queue: started by every worker, joined when it already runs. */
async function startRelay(deps: Services): Promise<void> {
  const workflowId = relayWorkflowId(deps.temporal.taskQueue);
  await labelledStarts(deps.log)(workLabels.relay(workflowId), (labels) =>
    deps.temporal.client.workflow.start<typeof outboxRelayWorkflow>(RELAY_WORKFLOW, {
      ...labels,
      workflowId,
      taskQueue: deps.temporal.taskQueue,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      args: [
        {
          // The workflow's rest between two relay activities, when nobody listens for commits: the activity rests the poll itself.
          pollMs: Math.min(deps.config.durations.outboxPollMs, RELAY_WORKFLOW_REST_MS),
          batchSize: 250,
          activityTimeoutMs: deps.config.durations.activityTimeoutMs,
          heartbeatMs: deps.config.durations.activityHeartbeatMs,
        },
      ],
    }),
  );
}

/**
 * SVC_WORKFLOW_BUNDLE, else a bundle made now. A traced worker always makes its own: a prebuilt
 * bundle has no tracing interceptors, and without them its activities would start traces of their own.
 */
async function workflowBundle(deps: Services): Promise<WorkflowBundleOption> {
  const prebuilt = deps.config.temporal.workflowBundle;
  if (!deps.tracing) return prebuilt ? { codePath: prebuilt } : bundleWorkflows();
  if (prebuilt)
    deps.log.warn('tracing is on: SVC_WORKFLOW_BUNDLE is not used, the worker bundles its workflows with the tracing interceptors');
  return bundleWorkflows({ tracing: true });
}

/**
 * Starts polling the task queue with every workflow and activity, and the bulk lane's queue
 * (`<queue>-bulk`: bulk items, bulk-sent invitations) with activities only, at most
 * SVC_BULK_WORKER_SLOTS at once and on the PDF threads' bulk lane; `stop()` drains both and closes.
 */
export async function startWorker(deps: Services): Promise<RunningWorker> {
  installRuntime(deps);
  const connection = await NativeConnection.connect({ address: deps.temporal.address });
  const traced = deps.tracing && (await import('./tracing')).tracedWorkerOptions(deps.tracing);
  const worker = await Worker.create({
    connection,
    namespace: deps.temporal.namespace,
    taskQueue: deps.temporal.taskQueue,
    activities: createActivities(deps),
    workflowBundle: await workflowBundle(deps),
    ...traced,
  });
  const bulk = await Worker.create({
    connection,
    namespace: deps.temporal.namespace,
    taskQueue: bulkTaskQueue(deps.temporal.taskQueue),
    activities: createActivities({ ...deps, pdf: deps.pdf.forBulk() }),
    maxConcurrentActivityTaskExecutions: deps.config.bulkWorkerSlots,
    // Activities only (the bulk's workflow runs on the service's queue): no workflow sinks to trace.
    ...(traced ? { interceptors: traced.interceptors } : {}),
  });
  const both = [worker, bulk];
  // One stopping (or failing) stops the other: neither lane runs alone. The connection closes once both have drained.
  const done = Promise.allSettled(both.map((each) => each.run().finally(() => stopAll(both))))
    .then((ended) => {
      const failed = ended.find((end) => end.status === 'rejected');
      if (failed) throw failed.reason;
    })
    .finally(() => connection.close());
  await ensureSearchAttributes(deps.temporal.connection, deps.temporal.namespace, deps.log);
  await startRelay(deps);
  return {
    worker,
    done,
    async stop() {
      stopAll(both);
      await done;
    },
  };
}

function stopAll(workers: Worker[]): void {
  for (const each of workers) if (each.getState() === 'RUNNING') each.shutdown();
}
