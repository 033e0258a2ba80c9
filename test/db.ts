import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { connectDb, type Db, pgliteDirectory } from '../db/connect';
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

/**
 * A fresh, migrated PostgreSQL database for one test file (or batch), dropped at the end. Under npm
 * test it is a copy of the run's template (TEST_DATABASE_TEMPLATE, createTemplateDatabase), migrated
 * once by the real migrations: migrateLatest then finds nothing left to run.
 */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = testDatabaseUrl();
  const name = `svc_test_${randomBase62(12).toLowerCase()}`;
  // The template lives on the run's server: a file that makes its databases on a cluster of its own
  // (test/reliability/postgres-restart.test.ts) migrates them itself.
  const onRunServer = process.env.TEST_DATABASE_TEMPLATE_URL === adminUrl;
  const template = options.migrate !== false && onRunServer ? process.env.TEST_DATABASE_TEMPLATE : undefined;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(template ? `create database ${name} template ${template}` : `create database ${name}`);
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

/**
 * npm test's templates, made once per run by the real migrations: a PostgreSQL database every test
 * database is copied from (CREATE DATABASE … TEMPLATE), and, for the PGlite phase, a PGlite data
 * directory each PGlite stack starts from a copy of. A stack still runs migrateLatest on its copy.
 */
export async function createTemplates(options: { pglite: boolean }): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const adminUrl = testDatabaseUrl();
  const name = `svc_template_${randomBase62(12).toLowerCase()}`;
  const admin = knexFactory({ client: 'pg', connection: adminUrl, pool: { min: 0, max: 1 } });
  await admin.raw(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = connectDb({ databaseUrl: url.toString(), dataDir: '/nonexistent' });
  await migrateLatest(db);
  await db.destroy();
  let pgliteDir: string | undefined;
  if (options.pglite) {
    pgliteDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-template-'));
    const embedded = connectDb({ dataDir: pgliteDir });
    await migrateLatest(embedded);
    await embedded.destroy();
  }
  return {
    env: {
      TEST_DATABASE_TEMPLATE: name,
      TEST_DATABASE_TEMPLATE_URL: adminUrl,
      ...(pgliteDir ? { TEST_PGLITE_TEMPLATE: pgliteDirectory(pgliteDir) } : {}),
    },
    async drop() {
      await admin.raw(`drop database if exists ${name} with (force)`);
      await admin.destroy();
      if (pgliteDir) fs.rmSync(pgliteDir, { recursive: true, force: true });
    },
  };
}
