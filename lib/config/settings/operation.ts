import { z } from 'zod';
import { int, port, type Setting, url } from './kinds';

/** Webhooks, logs, metrics, tracing, tools and feature flags; then the tests’ fault injection. */
export const OPERATION_SETTINGS = {
  LOG_LEVEL: {
    schema: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    doc: '`debug`, `info`, `warn`, `error` or `silent`; logs are JSON lines on stderr (pino), each line written during a request carries its `request_id`; `debug` also prints the stack of a start-up error and the Temporal core’s info lines (its warnings and errors are logged at every level, as JSON)',
  },
  SVC_LOG_REDACT: {
    schema: z.string().optional(),
    shown: '(empty)',
    doc: 'comma-separated pino redact paths (`principal.email,*.iban`) censored as `[redacted]`, on top of the secret fields always redacted (lib/log.ts `REDACTED_FIELDS`); a path pino cannot compile stops the process',
  },
  SVC_METRICS_TOKEN: {
    schema: z.string().min(16, 'must be at least 16 characters').optional(),
    doc: 'serves Prometheus `GET /metrics` on the public port, only with `Authorization: Bearer <token>` (at least 16 characters); unset, `/metrics` is 404 there',
  },
  SVC_METRICS_PORT: {
    schema: port.optional(),
    doc: "the API's (and `npm start`'s) internal metrics listener, serving only `GET /metrics` (token asked too when set); unset: none",
  },
  SVC_WORKER_METRICS_PORT: {
    schema: port.optional(),
    doc: "the worker's (`npm run worker`) internal metrics listener; unset: none",
  },
  SVC_METRICS_HOST: {
    schema: z.string().min(1).default('127.0.0.1'),
    doc: 'address the internal metrics listeners bind to (`0.0.0.0` for a scraper in another container)',
  },
  SVC_TRACING: {
    schema: z.enum(['off', 'otlp']).optional(),
    shown: '`off`; `otlp` when an OTLP endpoint below is set',
    doc: '`otlp` sends OpenTelemetry traces (HTTP request → Temporal client → workflow → activities) over OTLP/HTTP JSON; `off` keeps them off even with an endpoint set; off, nothing of it is loaded (docs/operations.md, Tracing)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    schema: url.optional(),
    shown: '(unset: `http://localhost:4318`)',
    doc: 'the OTLP/HTTP endpoint; spans go to `<endpoint>/v1/traces`. Setting it turns tracing on',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    schema: url.optional(),
    doc: 'the traces URL itself, instead of the endpoint above; setting it turns tracing on',
  },
  OTEL_SERVICE_NAME: {
    schema: z.string().min(1).optional(),
    shown: '`svc-api`, `svc-worker`, `svc` (`npm start`)',
    doc: 'the service name in traces',
  },
  OTEL_SDK_DISABLED: {
    doc: "`true` keeps tracing off whatever the above say; the SDK's other `OTEL_*` variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*` …) apply as usual",
  },
  SVC_CACHE_DIR: { shown: '`~/.cache/svc`', doc: "where the built Temporal CLI (and the tests' MinIO server) is cached" },
  MINIO_BINARY: {
    shown: '(unset: the cached build)',
    doc: 'tests only: a `minio` server binary for the object-storage tests, instead of building it with `go install`',
  },
  SVC_FF_L1_SIGNING: { shown: 'on', doc: 'feature flag `l1_signing`' },
  SVC_FF_L2_SIGNING: { shown: 'on; off when `SVC_ENV=production`', doc: 'feature flag `l2_signing`' },
  SVC_ALLOW_L2: { doc: 'legacy alias of `SVC_FF_L2_SIGNING`, read after it' },
  SVC_FF_AGENT_CONTACTS: { shown: 'on', doc: 'feature flag `agent_contacts`' },
  SVC_FF_AGENT_OFFERS: { shown: 'on', doc: 'feature flag `agent_offers` (off whenever `agent_contacts` is off)' },
  SVC_FF_AGENT_EDITOR: { shown: 'on', doc: 'feature flag `agent_editor`' },
  SVC_FF: { doc: 'JSON object of flags, e.g. `{"l2_signing": false}`, read after the variables above' },
  SVC_FAULT_APPLY_PAUSE_MS: {
    schema: int(0, 0),
    doc: 'tests only, read only when `SVC_ENV=test`: pause an apply after stamping and sealing, before its commit (to kill a worker there)',
  },
  SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS: {
    schema: int(0, 0),
    doc: 'tests only, read only when `SVC_ENV=test`: pause an apply after its commit, before its activity reports',
  },
  SVC_FAULT_BULK_ITEM_AFTER_COMMIT_PAUSE_MS: {
    schema: int(0, 0),
    doc: 'tests only, read only when `SVC_ENV=test`: pause a bulk item after its document commits, before its activity reports',
  },
} satisfies Record<string, Setting>;
