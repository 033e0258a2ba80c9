import { Client, Connection } from '@temporalio/client';
import type { Config } from '../activities/config/config';
import { createLogger, type Logger } from '../activities/log';
import { connectDb, dbDriver, type Db, type DbDriver } from '../db/connect';

/** What the API, the worker and the admin commands run on; built once per process. */
export interface Deps {
  config: Config;
  db: Db;
  dbDriver: DbDriver;
  log: Logger;
  temporal: TemporalDeps;
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
  return {
    config,
    db: connectDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: config.databasePoolMax, log }),
    dbDriver: dbDriver(config),
    log,
    temporal: connectTemporal(config, address),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.temporal.connection.close().catch(() => undefined);
  await deps.temporal.probe.close().catch(() => undefined);
  await deps.db.destroy();
}
