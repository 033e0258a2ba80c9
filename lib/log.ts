import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';

/** Structured log lines (JSON, one per line, on stderr) written by pino. Never pass secrets as fields. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /** Whether a line at `level` would be written: a caller skips building the fields of one that would not. */
  enabled?(level: Exclude<LogLevel, 'silent'>): boolean;
}

/**
 * Field names whose values never reach a log line, at the top level or one object down (a
 * `headers.authorization`): keys, tokens, codes, secrets and the links that carry a token.
 */
export const REDACTED_FIELDS = [
  'authorization',
  'cookie',
  'set-cookie',
  'x-webhook-signature',
  'webhook-signature',
  'x-svc-mcp-loopback',
  'api_key',
  'key',
  'token',
  'claim_token',
  'secret',
  'secrets',
  'signing_secret',
  'inbox_secret',
  'secret_key',
  'password',
  'passphrase',
  'code',
  'sign_url',
  'confirm_url',
  'accept_url',
  'claim_url',
  'download_url',
  'smtp_url',
  'database_url',
  // Temporal's activity lines: a task token completes the activity for whoever holds it.
  'taskToken',
];

const CENSOR = '[redacted]';

function fieldPath(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : `["${name}"]`;
}

/** pino `redact` paths: each redacted field at the top level and one level down, plus the configured extra paths. */
export function redactPaths(extra: readonly string[] = []): string[] {
  const nested = REDACTED_FIELDS.map(fieldPath).flatMap((path) => [path, path.startsWith('[') ? `*${path}` : `*.${path}`]);
  return [...nested, ...extra];
}

/** Throws when a redact path is not one pino can compile (checked when the configuration loads). */
export function checkRedactPaths(paths: readonly string[]): void {
  pino({ redact: [...paths] }, { write: () => undefined });
}

/** The fields of the request (or other unit of work) running now: every line written within it carries them. */
const scope = new AsyncLocalStorage<LogFields>();

/** Runs `work` so that every log line written inside it, by any logger and in any callee, carries `fields`. */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return scope.run({ ...scope.getStore(), ...fields }, work);
}

/** Runs `work` outside any context: for a timer armed during one request that works for all of them. */
export function withoutLogContext<T>(work: () => T): T {
  return scope.exit(work);
}

function serializable(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

/**
 * A logger at `level` writing through `write` (stderr by default). `base` fields go on every line,
 * redacted like any other field; `redact` adds pino redact paths to REDACTED_FIELDS.
 */
export function createLogger(
  level: LogLevel,
  base: LogFields = {},
  write: (line: string) => unknown = (line) => process.stderr.write(line),
  options: { redact?: readonly string[] } = {},
): Logger {
  const root = pino(
    {
      level,
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactPaths(options.redact), censor: CENSOR },
      // A copy: pino merges the line's fields into what the mixin returns.
      mixin: () => ({ ...scope.getStore() }),
    },
    { write },
  );
  return bind(root, base);
}

function bind(root: pino.Logger, base: LogFields): Logger {
  // Bound fields are merged into each line rather than pino child bindings, which redaction does not see.
  const emit = (at: Exclude<LogLevel, 'silent'>) => (message: string, fields?: LogFields) => {
    if (root.isLevelEnabled(at)) root[at](serializable({ ...base, ...fields }), message);
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (fields) => bind(root, { ...base, ...fields }),
    enabled: (at) => root.isLevelEnabled(at),
  };
}
