// The OpenTelemetry SDK and its OTLP exporter: imported by lib/tracing.ts only when tracing is on.
import { context, propagation, trace } from '@opentelemetry/api';
import { loggingErrorHandler, setGlobalErrorHandler, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { type Logger, withoutLogContext } from './log';
import type { Tracing, TracingSettings } from './tracing-types';

/** How long a stopping process waits for its last spans to reach an endpoint that does not answer. */
const SHUTDOWN_WAIT_MS = 5000;
const WARN_EVERY_MS = 60_000;

export function startOtlpTracing(settings: TracingSettings, serviceName: string, log: Logger): Tracing {
  const resource = Resource.default().merge(new Resource({ 'service.name': serviceName }));
  // Batched, posted as JSON (the http exporter's encoding); OTEL_BSP_* and OTEL_EXPORTER_OTLP_HEADERS/_TIMEOUT apply.
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.tracesUrl }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // AsyncLocalStorage context; W3C trace context only, so no baggage rides into workflow headers.
  provider.register({ propagator: new W3CTraceContextPropagator() });

  // A failed export is dropped by the SDK; an endpoint that stays down is said once a minute, not per batch.
  let warnedAt = 0;
  setGlobalErrorHandler((error) => {
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    withoutLogContext(() =>
      log.warn('trace export failed; spans are dropped', { endpoint: new URL(settings.tracesUrl).host, error: String(error) }),
    );
  });

  return {
    serviceName,
    tracer: provider.getTracer('svc'),
    resource,
    spanProcessor,
    clientInterceptor: new OpenTelemetryWorkflowClientInterceptor(),
    flush: () => provider.forceFlush(),
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_WAIT_MS).unref();
      });
      await Promise.race([provider.shutdown().catch(() => undefined), waited]);
      clearTimeout(timer);
      setGlobalErrorHandler(loggingErrorHandler());
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
