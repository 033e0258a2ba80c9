import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';

/** What tracing is and how it is set, apart from starting it: the SDK module (tracing-sdk.ts) and its loader (tracing.ts) both name them. */
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
