import fs from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import pg from 'pg';

export type Db = Knex;
export type DbDriver = 'postgres' | 'pglite';

export interface DbOptions {
  databaseUrl?: string;
  dataDir: string;
  poolMax?: number;
}

// int8 (count(*), sums) as numbers: every count this service makes fits in 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number.parseInt(value, 10));

export function dbDriver(options: Pick<DbOptions, 'databaseUrl'>): DbDriver {
  return options.databaseUrl ? 'postgres' : 'pglite';
}

export function pgliteDirectory(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/** PostgreSQL at DATABASE_URL, or embedded PGlite under the data dir (one connection, one process). */
export function connectDb(options: DbOptions): Db {
  if (options.databaseUrl) {
    return knexFactory({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  const directory = pgliteDirectory(options.dataDir);
  fs.mkdirSync(directory, { recursive: true });
  return knexFactory({
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    dialect: 'postgres',
    connection: { filename: directory },
  } as Knex.Config);
}
