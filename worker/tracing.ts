// The worker's share of tracing: imported by worker/worker.ts only when tracing is on.
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { WorkerOptions } from '@temporalio/worker';
import type { Tracing } from '../lib/tracing';
import { RELAY_WORKFLOW } from '../workflows/webhook/shared';

/**
 * A span per activity run, parented by the workflow's span that scheduled it (from the activity's
 * headers), and the sink through which the bundle's workflow interceptors (workflows/tracing.ts)
 * hand their spans to this process's exporter. The relay's polls are not traced, as its workflow is not.
 */
export function tracedWorkerOptions(tracing: Tracing): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  return {
    interceptors: {
      activity: [
        (ctx) =>
          ctx.info.workflowType === RELAY_WORKFLOW
            ? {}
            : { inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) },
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
  };
}
