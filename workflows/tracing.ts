// The workflow interceptors of a traced worker: bundled only when tracing is on (worker/worker.ts),
// so a worker without tracing runs a bundle without them. Not a workflow: workflows/index.ts leaves it out.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow';
import { type WorkflowInterceptorsFactory, workflowInfo } from '@temporalio/workflow';
import { RELAY_WORKFLOW } from './webhook/shared';

/**
 * Spans for running the workflow, its signals, updates and queries, and each activity or child it
 * schedules, parented by the trace in its start's headers. The outbox relay is left out: it polls
 * every second for as long as the worker runs, and continues as new into the same trace forever.
 */
export const interceptors: WorkflowInterceptorsFactory = () =>
  workflowInfo().workflowType === RELAY_WORKFLOW
    ? {}
    : {
        inbound: [new OpenTelemetryInboundInterceptor()],
        outbound: [new OpenTelemetryOutboundInterceptor()],
        internals: [new OpenTelemetryInternalsInterceptor()],
      };
