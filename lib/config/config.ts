import path from 'node:path';
import { z } from 'zod';
import type { CodeLimitSettings } from '../code-limits';
import { checkRedactPaths } from '../log';
import type { RequestLimitSettings } from '../request-limits';
import type { TracingSettings } from '../tracing';
import { type BlobLocation, parseBlobUrl } from './blob-url';
import { ConfigError } from './errors';
import { type ResolvedFlags, resolveFlags } from './flags';

export { ConfigError };

/** Every setting of the service, read once from the environment (README lists each variable). */
export interface Config {
  env: 'development' | 'test' | 'production';
  host: string;
  port: number;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-For/-Proto for client IPs and https. */
  trustProxy: boolean;
  /** With trustProxy: how many proxies' X-Forwarded-For entries to trust, counted from the right. */
  proxyHops: number;
  publicUrl: string;
  appUrl: string;
  docsUrl: string;
  dataDir: string;
  /** Where blobs live: files under `<dataDir>/blobs` (default), or an S3 bucket (SVC_BLOB_URL). */
  blobs: BlobLocation;
  databaseUrl?: string;
  databasePoolMax: number;
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    cliPath?: string;
    devPort: number;
    uiPort: number;
    uiUrl?: string;
    workflowBundle?: string;
  };
  jsonLimitBytes: number;
  /** Largest Drive upload (POST /assets); larger ones get 413. */
  uploadLimitBytes: number;
  /** Largest PDF POST /verify takes; larger ones get 413. */
  verifyLimitBytes: number;
  /** The safe intake of untrusted PDFs (lib/pdf/intake): threads, and the limits a PDF is read under. */
  pdf: { threads: number; timeMs: number; memoryMb: number; maxPages: number };
  /** Idempotency-Key: how long a retry waits for the first request's answer; when a running one counts as dead. */
  idempotency: { waitMs: number; staleMs: number };
  /** Key for signed links and cookies; generated once under the data dir when unset (not in production). */
  secretKey?: string;
  /** Keys secretKey replaced (SVC_SECRET_KEY_PREVIOUS): verify and decrypt only. */
  secretKeyPrevious: string[];
  signing: {
    p12Path?: string;
    passphrase?: string;
    /** RFC 3161 timestamp authority (SVC_TSA_URL); unset outside production: the development one under the data dir. */
    tsa?: { url: string; username?: string; password?: string; timeoutMs: number };
    /** Production only: seals without a trusted time are accepted (SVC_ALLOW_UNTIMESTAMPED_SEALS), weaker. */
    allowUntimestamped: boolean;
    /** How long a seal waits for an OCSP responder or a CRL server of its certificates. */
    revocationTimeoutMs: number;
  };
  smtpUrl?: string;
  mailFrom: string;
  webhooks: {
    /** Hosts (as written in URLs) that may resolve to loopback or private addresses: development and tests only. */
    allowedHosts: string[];
    /** Extra CA certificate (PEM file) trusted for deliveries, e.g. a local test receiver's. */
    caFile?: string;
    /** First attempts in flight at once to one endpoint (over that many keep-alive connections). */
    concurrency: number;
  };
  durations: Durations;
  /** Wrong-code budget per subject and code requests per client address (durations as inputs, so tests run short). */
  codeLimits: CodeLimitSettings;
  /** Requests per window per API key and per client address, shared by every API process (0: off). */
  rateLimits: RequestLimitSettings;
  /** GET /v1/health per client address per minute, counted in each process (0: off). */
  healthPerIp: number;
  /** Fault injection for crash-recovery tests; zero unless SVC_ENV=test. */
  faults: Faults;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** pino redact paths (SVC_LOG_REDACT) on top of the fields lib/log.ts always redacts. */
  logRedact: string[];
  /** /metrics: behind a Bearer token on the public port, and/or on internal listeners (ports unset: none). */
  metrics: { token?: string; host: string; port?: number; workerPort?: number };
  /** OpenTelemetry traces over OTLP/HTTP (SVC_TRACING, or an OTLP endpoint set); off by default. */
  tracing: TracingSettings;
  flags: ResolvedFlags;
}

/** Every wait and retry interval, as inputs, so tests run them short (milliseconds). */
export interface Durations {
  /** Lifetime of a signed download URL. */
  downloadUrlMs: number;
  /** How long a browser sign request waits for its apply before answering 202. */
  applyWaitMs: number;
  /** Lifetime of the link to the completed PDF in the completion mail. */
  completionLinkMs: number;
  /** How long after completion a signer can still download the completed copy from their sign link. */
  completedCopyMs: number;
  /** How often the API keys' last_used_at marks are written (one batch per interval). */
  keyUsageFlushMs: number;
  /** One-time codes (e-mail): lifetime. */
  oneTimeCodeMs: number;
  /** Signer session after the e-mail code: lifetime. */
  signSessionMs: number;
  /** An L1 sign request waits this long for the principal (SPEC: 24 hours). */
  signRequestMs: number;
  /** A principal's app session: lifetime. */
  appSessionMs: number;
  /** An offer's lifetime when its request names none (DESIGN: 7 days), carried in its expires_at. */
  offerMs: number;
  /** How often a transfer's unlock wait looks at its package again without a wake-up. */
  transferRecheckMs: number;
  /** Webhook delivery: the first retry, the longest gap (doubling between), the give-up age, one attempt's timeout. */
  webhookRetryInitialMs: number;
  webhookRetryMaxMs: number;
  webhookGiveUpMs: number;
  webhookTimeoutMs: number;
  /** How often the outbox relay looks for new events when idle. */
  outboxPollMs: number;
  /** How long a rotated webhook secret still signs alongside the new one. */
  secretOverlapMs: number;
  activityTimeoutMs: number;
  activityHeartbeatMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Attempts of one apply (stamp, seal, certificate) before it ends rejected with sign_failed. */
  applyAttempts: number;
  /** Attempts of any other workflow activity: every retry has a budget. */
  activityAttempts: number;
  /** Attempts to deliver one queued mail before it is recorded as failed (mail.failed). */
  mailAttempts: number;
  /** How long the API waits for Temporal to start or signal a workflow before answering 503. */
  temporalCallMs: number;
}

export interface Faults {
  /** Pause an apply after stamping and sealing, before its commit (a worker killed here must redo it). */
  applyPauseMs: number;
  /** Pause an apply after its commit, before the activity reports (a worker killed here must not redo it). */
  applyPauseAfterCommitMs: number;
}

type Env = Record<string, string | undefined>;

const port = z.coerce.number().int().min(0).max(65535);
const url = z.url().transform((value) => value.replace(/\/+$/, ''));

const EnvSchema = z.object({
  SVC_ENV: z.enum(['development', 'test', 'production']).optional(),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  SVC_TRUST_PROXY: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  /** Proxies in front of the API that append to X-Forwarded-For: the client is the address the outermost one saw. */
  SVC_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  SVC_PUBLIC_URL: url.optional(),
  SVC_APP_URL: url.optional(),
  SVC_DOCS_URL: url.optional(),
  SVC_DATA_DIR: z.string().min(1).default('./.data'),
  SVC_BLOB_URL: z.string().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('svc'),
  TEMPORAL_CLI: z.string().min(1).optional(),
  TEMPORAL_DEV_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: url.optional(),
  SVC_WORKFLOW_BUNDLE: z.string().min(1).optional(),
  SVC_JSON_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  SVC_UPLOAD_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(100 * 1024 * 1024),
  SVC_VERIFY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(25 * 1024 * 1024),
  SVC_PDF_THREADS: z.coerce.number().int().min(1).max(32).default(2),
  SVC_PDF_TIME_LIMIT_MS: z.coerce.number().int().min(100).default(10_000),
  // A thread needs about 100 MB to start on Node 24 (it loads tsx itself): below 128 no PDF could be read.
  SVC_PDF_MEMORY_MB: z.coerce.number().int().min(128).default(512),
  SVC_PDF_MAX_PAGES: z.coerce.number().int().min(1).default(2000),
  SVC_IDEMPOTENCY_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  SVC_IDEMPOTENCY_STALE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 60_000),
  SVC_SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Keys SVC_SECRET_KEY replaced, comma-separated: still accepted for verifying and decrypting during a rotation. */
  SVC_SECRET_KEY_PREVIOUS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().min(32, 'each key must be at least 32 characters'))),
  SVC_SIGNING_P12: z.string().min(1).optional(),
  SVC_SIGNING_P12_PASSPHRASE: z.string().optional(),
  SVC_TSA_URL: z
    .url()
    .regex(/^https?:\/\//, 'must be an http:// or https:// URL')
    .optional(),
  SVC_TSA_USERNAME: z.string().optional(),
  SVC_TSA_PASSWORD: z.string().optional(),
  SVC_TSA_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  SVC_ALLOW_UNTIMESTAMPED_SEALS: z
    .enum(['true', 'false', '1', '0'])
    .default('false')
    .transform((value) => value === 'true' || value === '1'),
  SVC_REVOCATION_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
    .optional(),
  SVC_MAIL_FROM: z.string().min(3).default('Agents API <no-reply@localhost>'),
  SVC_DOWNLOAD_URL_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(5 * 60_000),
  SVC_APPLY_WAIT_MS: z.coerce.number().int().min(0).default(20_000),
  SVC_COMPLETION_LINK_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(7 * 24 * 3_600_000),
  SVC_COMPLETED_COPY_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 24 * 3_600_000),
  SVC_KEY_USAGE_FLUSH_MS: z.coerce.number().int().min(10).default(10_000),
  SVC_ONE_TIME_CODE_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  SVC_SIGN_SESSION_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60 * 60_000),
  SVC_SIGN_REQUEST_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 60 * 60_000),
  SVC_OFFER_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(7 * 24 * 60 * 60_000),
  SVC_TRANSFER_RECHECK_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(60 * 60_000),
  SVC_APP_SESSION_TTL_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(12 * 60 * 60_000),
  SVC_CODE_WRONG_LIMIT: z.coerce.number().int().min(1).default(10),
  SVC_CODE_LOCK_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(24 * 60 * 60_000),
  SVC_CODE_IP_LIMIT: z.coerce.number().int().min(1).default(30),
  SVC_CODE_IP_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  SVC_RATE_LIMIT_PER_KEY: z.coerce.number().int().min(0).default(600),
  SVC_RATE_LIMIT_PER_IP: z.coerce.number().int().min(0).default(300),
  SVC_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1000).default(60_000),
  SVC_HEALTH_LIMIT_PER_IP: z.coerce.number().int().min(0).default(600),
  SVC_WEBHOOK_RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(10_000),
  SVC_WEBHOOK_RETRY_MAX_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(60 * 60_000),
  SVC_WEBHOOK_GIVE_UP_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(24 * 60 * 60_000),
  SVC_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  SVC_OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(1000),
  SVC_WEBHOOK_SECRET_OVERLAP_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(24 * 60 * 60_000),
  SVC_WEBHOOK_ALLOWED_HOSTS: z.string().optional(),
  SVC_WEBHOOK_CA_FILE: z.string().min(1).optional(),
  SVC_WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  SVC_ACTIVITY_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(2 * 60_000),
  SVC_ACTIVITY_HEARTBEAT_MS: z.coerce.number().int().min(500).default(30_000),
  SVC_RETRY_INITIAL_MS: z.coerce.number().int().min(10).default(1000),
  SVC_RETRY_MAX_MS: z.coerce.number().int().min(10).default(60_000),
  SVC_APPLY_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(5),
  SVC_ACTIVITY_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  SVC_MAIL_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(8),
  SVC_TEMPORAL_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).default(10_000),
  SVC_FAULT_APPLY_PAUSE_MS: z.coerce.number().int().min(0).default(0),
  SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS: z.coerce.number().int().min(0).default(0),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  SVC_LOG_REDACT: z.string().optional(),
  SVC_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SVC_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  SVC_METRICS_PORT: port.optional(),
  SVC_WORKER_METRICS_PORT: port.optional(),
  SVC_TRACING: z.enum(['off', 'otlp']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: url.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.optional(),
  OTEL_SERVICE_NAME: z.string().min(1).optional(),
});

/** SVC_LOG_REDACT: comma-separated pino redact paths, refused at start when pino cannot compile one. */
function redactPathsOf(value: string | undefined): string[] {
  const paths = (value ?? '')
    .split(',')
    .map((path) => path.trim())
    .filter(Boolean);
  try {
    checkRedactPaths(paths);
  } catch (error) {
    throw new ConfigError(`invalid environment: SVC_LOG_REDACT: ${(error as Error).message}`);
  }
  return paths;
}

/**
 * Tracing is on with SVC_TRACING=otlp, or when an OTLP endpoint is set and SVC_TRACING does not say
 * off; OTEL_SDK_DISABLED=true turns it off whatever the rest says. The endpoints read as OTel's own.
 */
function tracingOf(e: z.infer<typeof EnvSchema>, env: Env): TracingSettings {
  const endpointSet = Boolean(e.OTEL_EXPORTER_OTLP_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const asked = e.SVC_TRACING ?? (endpointSet ? 'otlp' : 'off');
  return {
    enabled: asked === 'otlp' && env.OTEL_SDK_DISABLED?.toLowerCase() !== 'true',
    tracesUrl: e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? `${e.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318'}/v1/traces`,
    serviceName: e.OTEL_SERVICE_NAME,
  };
}

/** Empty variables count as unset, as a shell `FOO=` usually means "no value". */
function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
}

export function loadConfig(rawEnv: Env = process.env): Config {
  const env = withoutEmpty(rawEnv);
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`invalid environment: ${problems.join('; ')}`);
  }
  // Fail closed: NODE_ENV=production (set by most images and hosts) means production unless SVC_ENV says otherwise.
  const e = { ...parsed.data, SVC_ENV: parsed.data.SVC_ENV ?? (env.NODE_ENV === 'production' ? 'production' : 'development') } as const;
  if (e.SVC_ENV === 'production' && !e.SVC_SECRET_KEY) {
    throw new ConfigError(
      'SVC_SECRET_KEY is required in production (signed links and sessions must survive restarts and be shared by every API process)',
    );
  }
  if (e.SVC_ENV === 'production' && !e.SMTP_URL) {
    throw new ConfigError('SMTP_URL is required in production: without it, sign links and one-time codes would reach nobody');
  }
  // Fail closed: a production seal's time comes from a timestamp authority, never from this server alone.
  if (e.SVC_ENV === 'production' && !e.SVC_TSA_URL && !e.SVC_ALLOW_UNTIMESTAMPED_SEALS) {
    throw new ConfigError(
      'SVC_TSA_URL is required in production (every seal carries an RFC 3161 timestamp from that authority); ' +
        'set SVC_ALLOW_UNTIMESTAMPED_SEALS=true only to accept seals whose time is the server’s own claim (weaker)',
    );
  }
  const publicUrl = e.SVC_PUBLIC_URL ?? `http://localhost:${e.PORT}`;
  return {
    env: e.SVC_ENV,
    host: e.HOST,
    port: e.PORT,
    trustProxy: e.SVC_TRUST_PROXY,
    proxyHops: e.SVC_PROXY_HOPS,
    publicUrl,
    appUrl: e.SVC_APP_URL ?? `${publicUrl}/app`,
    docsUrl: e.SVC_DOCS_URL ?? `${publicUrl}/docs/errors`,
    dataDir: path.resolve(e.SVC_DATA_DIR),
    blobs: parseBlobUrl(e.SVC_BLOB_URL, path.resolve(e.SVC_DATA_DIR), env),
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI,
      devPort: e.TEMPORAL_DEV_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: e.TEMPORAL_UI_URL,
      workflowBundle: e.SVC_WORKFLOW_BUNDLE,
    },
    jsonLimitBytes: e.SVC_JSON_LIMIT_BYTES,
    uploadLimitBytes: e.SVC_UPLOAD_LIMIT_BYTES,
    verifyLimitBytes: e.SVC_VERIFY_LIMIT_BYTES,
    pdf: { threads: e.SVC_PDF_THREADS, timeMs: e.SVC_PDF_TIME_LIMIT_MS, memoryMb: e.SVC_PDF_MEMORY_MB, maxPages: e.SVC_PDF_MAX_PAGES },
    idempotency: { waitMs: e.SVC_IDEMPOTENCY_WAIT_MS, staleMs: e.SVC_IDEMPOTENCY_STALE_MS },
    secretKey: e.SVC_SECRET_KEY,
    secretKeyPrevious: e.SVC_SECRET_KEY_PREVIOUS,
    signing: {
      p12Path: e.SVC_SIGNING_P12,
      passphrase: e.SVC_SIGNING_P12_PASSPHRASE,
      tsa: e.SVC_TSA_URL
        ? { url: e.SVC_TSA_URL, username: e.SVC_TSA_USERNAME, password: e.SVC_TSA_PASSWORD, timeoutMs: e.SVC_TSA_TIMEOUT_MS }
        : undefined,
      allowUntimestamped: e.SVC_ALLOW_UNTIMESTAMPED_SEALS,
      revocationTimeoutMs: e.SVC_REVOCATION_TIMEOUT_MS,
    },
    smtpUrl: e.SMTP_URL,
    mailFrom: e.SVC_MAIL_FROM,
    webhooks: {
      allowedHosts: (e.SVC_WEBHOOK_ALLOWED_HOSTS ?? '')
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
      caFile: e.SVC_WEBHOOK_CA_FILE,
      concurrency: e.SVC_WEBHOOK_CONCURRENCY,
    },
    durations: {
      downloadUrlMs: e.SVC_DOWNLOAD_URL_TTL_MS,
      applyWaitMs: e.SVC_APPLY_WAIT_MS,
      completionLinkMs: e.SVC_COMPLETION_LINK_TTL_MS,
      completedCopyMs: e.SVC_COMPLETED_COPY_TTL_MS,
      keyUsageFlushMs: e.SVC_KEY_USAGE_FLUSH_MS,
      oneTimeCodeMs: e.SVC_ONE_TIME_CODE_TTL_MS,
      signSessionMs: e.SVC_SIGN_SESSION_TTL_MS,
      signRequestMs: e.SVC_SIGN_REQUEST_TTL_MS,
      offerMs: e.SVC_OFFER_TTL_MS,
      transferRecheckMs: e.SVC_TRANSFER_RECHECK_MS,
      appSessionMs: e.SVC_APP_SESSION_TTL_MS,
      webhookRetryInitialMs: e.SVC_WEBHOOK_RETRY_INITIAL_MS,
      webhookRetryMaxMs: e.SVC_WEBHOOK_RETRY_MAX_MS,
      webhookGiveUpMs: e.SVC_WEBHOOK_GIVE_UP_MS,
      webhookTimeoutMs: e.SVC_WEBHOOK_TIMEOUT_MS,
      outboxPollMs: e.SVC_OUTBOX_POLL_MS,
      secretOverlapMs: e.SVC_WEBHOOK_SECRET_OVERLAP_MS,
      activityTimeoutMs: e.SVC_ACTIVITY_TIMEOUT_MS,
      activityHeartbeatMs: e.SVC_ACTIVITY_HEARTBEAT_MS,
      retryInitialMs: e.SVC_RETRY_INITIAL_MS,
      retryMaxMs: e.SVC_RETRY_MAX_MS,
      applyAttempts: e.SVC_APPLY_ATTEMPTS,
      activityAttempts: e.SVC_ACTIVITY_ATTEMPTS,
      mailAttempts: e.SVC_MAIL_ATTEMPTS,
      temporalCallMs: e.SVC_TEMPORAL_CALL_TIMEOUT_MS,
    },
    codeLimits: {
      wrongLimit: e.SVC_CODE_WRONG_LIMIT,
      lockMs: e.SVC_CODE_LOCK_MS,
      ipLimit: e.SVC_CODE_IP_LIMIT,
      ipWindowMs: e.SVC_CODE_IP_WINDOW_MS,
    },
    rateLimits: {
      perKey: e.SVC_RATE_LIMIT_PER_KEY,
      perIp: e.SVC_RATE_LIMIT_PER_IP,
      windowMs: e.SVC_RATE_LIMIT_WINDOW_MS,
    },
    healthPerIp: e.SVC_HEALTH_LIMIT_PER_IP,
    faults: {
      applyPauseMs: e.SVC_ENV === 'test' ? e.SVC_FAULT_APPLY_PAUSE_MS : 0,
      applyPauseAfterCommitMs: e.SVC_ENV === 'test' ? e.SVC_FAULT_APPLY_AFTER_COMMIT_PAUSE_MS : 0,
    },
    logLevel: e.LOG_LEVEL,
    logRedact: redactPathsOf(e.SVC_LOG_REDACT),
    metrics: { token: e.SVC_METRICS_TOKEN, host: e.SVC_METRICS_HOST, port: e.SVC_METRICS_PORT, workerPort: e.SVC_WORKER_METRICS_PORT },
    tracing: tracingOf(e, env),
    flags: resolveFlags(rawEnv, e.SVC_ENV),
  };
}
