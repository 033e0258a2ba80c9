import { migrationStatus } from '../db/migrate';
import type { Services } from '../lib/services';

/** Runs `stop` once on SIGINT or SIGTERM; a second signal exits at once. */
export function onShutdown(
  stop: (signal: string) => Promise<void>,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) {
      log(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    log(`${signal}: stopping ...`);
    stop(signal).then(
      () => process.exit(0),
      (error: Error) => {
        log(`error while stopping: ${error.stack ?? error.message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

/** The API and the worker refuse to run on a schema that is behind the code. */
export async function requireMigrated(deps: Services): Promise<void> {
  const { pending } = await migrationStatus(deps.db);
  if (pending.length > 0) {
    throw new Error(`the database has ${pending.length} pending migration(s) (${pending.join(', ')}); run: npm run migrate`);
  }
}

/** Entry points print a one-line reason and exit 1 instead of an unhandled rejection. */
export function fail(error: unknown): never {
  const message = error instanceof Error ? (error.name === 'ConfigError' ? error.message : (error.stack ?? error.message)) : String(error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

export function requireProductionSettings(config: Services['config'], processName: string): void {
  const missing = [!config.databaseUrl && 'DATABASE_URL', !config.temporal.address && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length > 0) {
    throw new Error(
      `npm run ${processName} needs ${missing.join(' and ')} (separate processes share PostgreSQL and a Temporal server); ` +
        'npm start runs everything embedded in one process instead',
    );
  }
  // Every API and worker process must seal with one certificate; a data dir is no place to share it from.
  if (config.env === 'production' && !config.signing.p12Path) {
    throw new Error(
      `npm run ${processName} in production needs SVC_SIGNING_P12 (the PKCS#12 seal certificate, the same file for every API ` +
        'and worker process); without it each process would make its own self-signed one in its data dir. ' +
        'To make a self-signed one: node --import tsx runtime/seal-cert.ts <file> (passphrase from SVC_SIGNING_P12_PASSPHRASE)',
    );
  }
}
