import type { LogFields, Logger } from '../lib/log';

/** A logger that keeps its warnings. */
export function recordingLogger(warnings: Array<[string, LogFields | undefined]>): Logger {
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message, fields) => warnings.push([message, fields]),
    error: () => undefined,
    child: () => logger,
  };
  return logger;
}
