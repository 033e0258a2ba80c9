import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createFileBlobStore, type BlobStore } from '../activities/blobs/blobs';
import { createCodeLimits, type CodeLimits } from '../activities/codes/limits';
import type { Config, Faults } from '../activities/config/config';
import { createLogger, type Logger } from '../activities/log';
import { createMailer, type Mailer } from '../activities/mail/mailer';
import { createSealer, loadSealCertificate, type Sealer } from '../activities/pdf/seal';
import { loadSecretKey } from '../activities/secrets/secret-key';
import { connectDb, dbDriver, type Db, type DbDriver } from '../db/connect';

/** What the API, the worker and the admin commands run on; built once per process. */
export interface Deps {
  config: Config;
  db: Db;
  dbDriver: DbDriver;
  log: Logger;
  temporal: TemporalDeps;
  blobs: BlobStore;
  /** Key of signed links, tokens and cookies. */
  secret: Buffer;
  mailer: Mailer;
  /** Wrong-code budgets and per-address limits of e-mailed codes, kept in the database. */
  codeLimits: CodeLimits;
  /** The PDF seal, loaded (or created) on first use. */
  sealer(): Promise<Sealer>;
  /** Fault injection for tests of crash recovery (zero unless SVC_ENV=test). */
  faults: Faults;
}

export interface TemporalDeps {
  address: string;
  namespace: string;
  taskQueue: string;
  connection: Connection;
  client: Client;
  /** For health checks: no retry interceptor, so an unreachable server answers at once, not after retries. */
  probe: Connection;
}

/** A lazy client connection: the API starts even while Temporal is down, and health reports it. */
export function connectTemporal(config: Config, address: string): TemporalDeps {
  const connection = Connection.lazy({ address });
  return {
    address,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    connection,
    client: new Client({ connection, namespace: config.temporal.namespace }),
    probe: Connection.lazy({ address, interceptors: [], connectTimeout: 3000 }),
  };
}

export function createDeps(config: Config, options: { temporalAddress?: string; log?: Logger } = {}): Deps {
  const address = options.temporalAddress ?? config.temporal.address;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (npm start starts a dev server when it is absent)');
  const log = options.log ?? createLogger(config.logLevel);
  const db = connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax, log });
  let sealer: Promise<Sealer> | undefined;
  const secret = loadSecretKey({ secretKey: config.secretKey, dataDir: config.dataDir });
  // A seal certificate that failed to load is tried again on the next apply, not cached as failed.
  const loadSealer = () =>
    loadSealCertificate({ dataDir: config.dataDir, p12Path: config.signing.p12Path, passphrase: config.signing.passphrase })
      .then(createSealer)
      .catch((error: unknown) => {
        sealer = undefined;
        throw error;
      });
  return {
    config,
    db,
    dbDriver: dbDriver(config),
    log,
    temporal: connectTemporal(config, address),
    blobs: createFileBlobStore(path.join(config.dataDir, 'blobs')),
    secret,
    mailer: createMailer({
      db,
      log,
      smtpUrl: config.smtpUrl,
      from: config.mailFrom,
      secret,
      print: config.env === 'development' ? (text) => process.stdout.write(text) : undefined,
    }),
    codeLimits: createCodeLimits(db, config.codeLimits),
    sealer: () => (sealer ??= loadSealer()),
    faults: config.faults,
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  deps.mailer.close();
  await deps.temporal.connection.close().catch(() => undefined);
  await deps.temporal.probe.close().catch(() => undefined);
  await deps.db.destroy();
}
