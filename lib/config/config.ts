import path from 'node:path';
import type { z } from 'zod';
import { checkRedactPaths } from '../log';
import type { TracingSettings } from '../tracing';
import { parseBlobUrl } from './blob-url';
import { ConfigError } from './errors';
import { resolveFlags } from './flags';
import { EnvSchema } from './settings';

export { ConfigError };

/**
 * Every setting of the service, read once from the environment: the variables, their schemas,
 * defaults and meaning are declared once in settings.ts (docs/configuration.md's table is generated from it);
 * this is their shape for the code, `loadConfig`'s answer.
 */
export type Config = ReturnType<typeof loadConfig>;
/** Every wait and retry interval, as inputs, so tests run them short (milliseconds). */
export type Durations = Config['durations'];
/** Fault injection for crash-recovery tests; zero unless SVC_ENV=test. */
export type Faults = Config['faults'];

type Env = Record<string, string | undefined>;

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

export function loadConfig(rawEnv: Env = process.env) {
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
    verify: {
      trustAnchors: e.SVC_VERIFY_TRUST_ANCHORS,
      threads: e.SVC_VERIFY_THREADS,
      queue: e.SVC_VERIFY_QUEUE,
      perAddress: e.SVC_VERIFY_PER_ADDRESS,
    },
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
    bulkConcurrency: e.SVC_BULK_CONCURRENCY,
    bulkTenantRunning: e.SVC_BULK_TENANT_RUNNING,
    bulkWorkerSlots: e.SVC_BULK_WORKER_SLOTS,
    oauth: {
      fetchConcurrency: e.SVC_OAUTH_FETCH_CONCURRENCY,
      dnsServers: e.SVC_OAUTH_DNS_SERVERS,
      unusedClientTtlMs: e.SVC_OAUTH_UNUSED_CLIENT_TTL_MS,
    },
    durations: {
      downloadUrlMs: e.SVC_DOWNLOAD_URL_TTL_MS,
      applyWaitMs: e.SVC_APPLY_WAIT_MS,
      completionLinkMs: e.SVC_COMPLETION_LINK_TTL_MS,
      completedCopyMs: e.SVC_COMPLETED_COPY_TTL_MS,
      keyUsageFlushMs: e.SVC_KEY_USAGE_FLUSH_MS,
      keyCacheTtlMs: e.SVC_KEY_CACHE_TTL_MS,
      rateLimitSyncMs: e.SVC_RATE_LIMIT_SYNC_MS,
      oneTimeCodeMs: e.SVC_ONE_TIME_CODE_TTL_MS,
      oauthAccessTokenMs: e.SVC_OAUTH_ACCESS_TOKEN_TTL_MS,
      signSessionMs: e.SVC_SIGN_SESSION_TTL_MS,
      signRequestMs: e.SVC_SIGN_REQUEST_TTL_MS,
      offerMs: e.SVC_OFFER_TTL_MS,
      reminderMinMs: e.SVC_REMINDER_MIN_MS,
      expiryMinMs: e.SVC_EXPIRY_MIN_MS,
      documentWaitMaxMs: e.SVC_DOCUMENT_WAIT_MAX_MS,
      remindIntervalMs: e.SVC_REMIND_INTERVAL_MS,
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
      subjectLimit: e.SVC_CODE_SUBJECT_LIMIT,
      subjectWindowMs: e.SVC_CODE_SUBJECT_WINDOW_MS,
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
      bulkItemPauseAfterCommitMs: e.SVC_ENV === 'test' ? e.SVC_FAULT_BULK_ITEM_AFTER_COMMIT_PAUSE_MS : 0,
    },
    logLevel: e.LOG_LEVEL,
    logRedact: redactPathsOf(e.SVC_LOG_REDACT),
    metrics: { token: e.SVC_METRICS_TOKEN, host: e.SVC_METRICS_HOST, port: e.SVC_METRICS_PORT, workerPort: e.SVC_WORKER_METRICS_PORT },
    tracing: tracingOf(e, env),
    flags: resolveFlags(rawEnv, e.SVC_ENV),
  };
}
