import knexFactory from 'knex';
import { connectDb, type Db } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { randomBase62 } from '../lib/ids';

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with npm test');
  return url;
}

export interface TestDatabase {
  url: string;
  db: Db;
  drop(): Promise<void>;
}

/** A fresh, migrated PostgreSQL database for one test file, dropped at the end. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = testDatabaseUrl();
  const name = `svc_test_${randomBase62(12).toLowerCase()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  await admin.destroy();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = connectDb({ databaseUrl: url.toString(), dataDir: '/nonexistent' });
  if (options.migrate !== false) await migrateLatest(db);
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.destroy();
      const cleanup = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
      await cleanup.raw(`drop database if exists ${name} with (force)`);
      await cleanup.destroy();
    },
  };
}
