import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';
import { runCommitHooks } from './after-commit';
import type { DbLog } from './log';
import { guardTransactions, nameConnectionHolder } from './transaction-guard';

export type Db = Knex;
export type DbDriver = 'postgres' | 'pglite';

export interface DbOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax?: number;
  /** PGlite only: how long a query waits for the one connection (PGLITE_ACQUIRE_TIMEOUT_MS unless given). */
  acquireTimeoutMs?: number;
  /** Where knex's own warnings go (instead of the console). */
  log?: DbLog;
}

function knexLog(log: DbOptions['log']): Knex.Config['log'] {
  const text = (message: unknown) => (message instanceof Error ? message.message : String(message));
  return {
    warn: (message: unknown) => log?.warn('database', { detail: text(message) }),
    error: (message: unknown) => log?.error('database', { detail: text(message) }),
    deprecate: (method: string, alternative: string) => log?.debug('database deprecation', { method, alternative }),
    debug: () => undefined,
  };
}

// int8 (count(*), sums) as numbers: every count this service makes fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export function dbDriver(options: Pick<DbOptions, 'databaseUrl'>): DbDriver {
  return options.databaseUrl ? 'postgres' : 'pglite';
}

export function pgliteDirectory(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/**
 * How long a query waits for PGlite's only connection before failing with the stack of its holder:
 * far longer than any transaction of the service holds it, far shorter than knex's 60 s default.
 */
export const PGLITE_ACQUIRE_TIMEOUT_MS = 15_000;

/** A hook run after a commit (db/after-commit.ts) that failed: its transaction stands, the failure is logged. */
function commitHookFailed(log: DbOptions['log']) {
  return (error: unknown) => log?.warn('after-commit work failed', { detail: error instanceof Error ? error.message : String(error) });
}

/**
 * PostgreSQL at DATABASE_URL, or embedded PGlite under the data dir (one connection, one process).
 * Either way a query that escapes its transaction fails at once (db/transaction-guard.ts), and work
 * registered with onCommit runs once its transaction committed (db/after-commit.ts).
 */
export function connectDb(options: DbOptions): Db {
  if (options.databaseUrl) {
    const db = knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
      log: knexLog(options.log),
    });
    guardTransactions(db);
    runCommitHooks(db, commitHookFailed(options.log));
    return db;
  }
  const directory = pgliteDirectory(options.dataDir);
  fs.mkdirSync(directory, { recursive: true });
  const acquireTimeoutMs = options.acquireTimeoutMs ?? PGLITE_ACQUIRE_TIMEOUT_MS;
  const db = knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { filename: directory },
    acquireConnectionTimeout: acquireTimeoutMs,
    log: knexLog(options.log),
  } as Knex.Config);
  nameConnectionHolder(db, acquireTimeoutMs);
  guardTransactions(db);
  runCommitHooks(db, commitHookFailed(options.log));
  return db;
}
