/** Structured log lines (JSON, one per line, on stderr). Never pass secrets as fields. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

function serializable(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
  }
  return out;
}

export function createLogger(level: LogLevel, base: LogFields = {}, write = (line: string) => process.stderr.write(line)): Logger {
  const emit = (at: Exclude<LogLevel, 'silent'>, message: string, fields: LogFields = {}) => {
    if (RANK[at] < RANK[level]) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: at, msg: message, ...base, ...serializable(fields) })}\n`);
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}
