import type { Services } from '../activities/services';
import { isDatabaseUnavailable } from '../db/errors';
import { migrationStatus } from '../db/migrate';
import { ConfigError } from '../lib/config/errors';

// A repeat this soon after the first signal is the same request: npm forwards to the service the
// Ctrl-C that the terminal sent it as well.
const SIGNAL_ECHO_MS = 1000;

/**
 * Runs `stop` once on SIGINT or SIGTERM, then exits 0; a second signal (not its echo) exits at once.
 * The returned function runs the same stop for a failure found while running, then exits 1.
 */
export function onShutdown(
  stop: (reason: string) => Promise<void>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): (reason: string) => void {
  let since: number | undefined;
  const begin = (reason: string, code: number) => {
    since = Date.now();
    log(`${reason}: stopping ...`);
    stop(reason).then(
      () => process.exit(code),
      (error: unknown) => {
        log(`error while stopping: ${describeFailure(error)}`);
        process.exit(1);
      },
    );
  };
  const handler = (signal: NodeJS.Signals) => {
    if (since === undefined) return begin(signal, 0);
    if (Date.now() - since < SIGNAL_ECHO_MS) return;
    log(`${signal} again: exiting now`);
    process.exit(1);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return (reason) => {
    if (since === undefined) begin(reason, 1);
  };
}

/** A start refused for a reason its message explains, with what to do: printed alone, without a stack. */
export class StartRefused extends Error {
  override name = 'StartRefused';
}

/** The API and the worker refuse to run on a schema that is behind the code. */
export async function requireMigrated(deps: Services): Promise<void> {
  const { pending } = await migrationStatus(deps.db);
  if (pending.length > 0) {
    throw new StartRefused(`the database has ${pending.length} pending migration(s) (${pending.join(', ')}); run: npm run migrate`);
  }
}

/** The text of an error: its message, or what a message-less one (an AggregateError of a refused connect) carries. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, errors } = error as Error & { code?: unknown; errors?: unknown[] };
  return error.message || (errors?.[0] instanceof Error && errors[0].message) || (typeof code === 'string' && code) || error.name;
}

/** What a failed start tells the operator, on one line: what went wrong and, where one does, the setting to change. */
export function describeFailure(error: unknown, env: Record<string, string | undefined> = process.env): string {
  if (env.LOG_LEVEL === 'debug' && error instanceof Error && error.stack) return error.stack;
  const message = messageOf(error).replace(/\s*\n\s*/g, ' ');
  const name = error instanceof Error ? error.name : '';
  // These already say what to change.
  if (name === 'ConfigError' || name === 'DevServerError' || name === 'StartRefused') return message;
  if (env.DATABASE_URL && isDatabaseUnavailable(error)) {
    return `the database cannot be reached (${message}): is PostgreSQL running at DATABASE_URL?`;
  }
  if (name === 'TransportError') return `Temporal cannot be reached (${message}): is a Temporal server running at TEMPORAL_ADDRESS?`;
  return `${message} (LOG_LEVEL=debug prints where)`;
}

/** Entry points print a one-line reason and exit 1 instead of an unhandled rejection (LOG_LEVEL=debug: the stack). */
export function fail(error: unknown): never {
  process.stderr.write(`${describeFailure(error)}\n`);
  process.exit(1);
}

export function requireProductionSettings(config: Services['config'], processName: string): void {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporal.address && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) {
    throw new ConfigError(
      `npm run ${processName} needs ${missing.join(' and ')} (separate processes share PostgreSQL and a Temporal server); ` +
        'npm start runs everything embedded in one process instead',
    );
  }
  // Every API and worker process must seal with one certificate; a data dir is no place to share it from.
  if (config.env === 'production' && !config.signing.p12Path) {
    throw new ConfigError(
      `npm run ${processName} in production needs SVC_SIGNING_P12 (the PKCS#12 seal certificate, the same file for every API ` +
        'and worker process); without it each process would make its own self-signed one in its data dir. ' +
        'To make a self-signed one: node --import tsx runtime/seal-cert.ts <file> (passphrase from SVC_SIGNING_P12_PASSPHRASE)',
    );
  }
}
