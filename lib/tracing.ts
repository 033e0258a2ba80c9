import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { Logger } from './log';

export interface TracingSettings {
  enabled: boolean;
  /** Where spans are posted as OTLP/HTTP JSON: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  tracesUrl: string;
  /** OTEL_SERVICE_NAME; unset, each process names itself (svc-api, svc-worker, svc). */
  serviceName?: string;
}

/** The process's OpenTelemetry tracing (registered globally), when SVC_TRACING turned it on. */
export interface Tracing {
  serviceName: string;
  /** Starts the API's request spans. */
  tracer: Tracer;
  resource: Resource;
  /** Batches spans to the OTLP endpoint; the worker hands it the spans its workflows report through a sink. */
  spanProcessor: SpanProcessor;
  /** Wraps workflow starts, signals and updates in spans and carries their context in the workflow's headers. */
  clientInterceptor: WorkflowClientInterceptor;
  /** Exports every ended span now. */
  flush(): Promise<void>;
  /** Exports what is left (waiting a few seconds at most) and unregisters the provider. */
  shutdown(): Promise<void>;
}

let running: { tracing: Promise<Tracing>; users: number } | undefined;

/**
 * This process's tracing, or undefined when it is off. Off, nothing is loaded (the SDK and the
 * exporter are imported only here), no provider is registered and no interceptor is added. One
 * provider per process: an API and a worker in one process (npm start, the test stacks) share it,
 * and it shuts down with the last of them.
 */
export async function startTracing(settings: TracingSettings, serviceName: string, log: Logger): Promise<Tracing | undefined> {
  if (!settings.enabled) return undefined;
  if (!running) {
    const current = {
      users: 0,
      tracing: import('./tracing-sdk').then(({ startOtlpTracing }) => startOtlpTracing(settings, settings.serviceName ?? serviceName, log)),
    };
    running = current;
    current.tracing.catch(() => {
      if (running === current) running = undefined;
    });
  }
  const shared = running;
  shared.users += 1;
  const tracing = await shared.tracing;
  let closed = false;
  return {
    ...tracing,
    async shutdown() {
      if (closed) return;
      closed = true;
      shared.users -= 1;
      if (shared.users > 0) return;
      if (running === shared) running = undefined;
      await tracing.shutdown();
    },
  };
}
