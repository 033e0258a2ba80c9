import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Services } from '../activities/services';
import { type RunningServer, startHttpServer } from '../api/server';
import { type Db, type DbDriver, pgliteDirectory } from '../db/connect';
import { migrateLatest } from '../db/migrate';
import { type Config, loadConfig } from '../lib/config/config';
import { randomBase62 } from '../lib/ids';
import { createLogger, type Logger } from '../lib/log';
import { closeServices, startServices } from '../runtime/services';
import { serviceSurfaces } from '../runtime/surfaces';
import { type RunningWorker, startWorker } from '../worker/worker';
import { createTestDatabase, type TestDatabase } from './db';
import { type SmtpListener, startSmtpListener } from './smtp';

export interface Stack {
  url: string;
  /** The stack's environment (for processes that must share its database, task queue and data dir). */
  env: Record<string, string | undefined>;
  deps: Services;
  config: Config;
  database: TestDatabase;
  /** The stack's own SMTP listener (unless the test gave SMTP_URL): every mail the service sends lands here. */
  smtp?: SmtpListener;
  worker?: RunningWorker;
  /**
   * On PGlite: the stack's database connection, for services a test builds beside the stack's own
   * (createServices' sharedDb), since one process may open PGlite once; undefined on PostgreSQL.
   */
  sharedDb?: Db;
  /** Another API process on the same database and task queue, with its own environment. */
  /** Another API on this stack's database and Temporal with these settings (and, given, its own logger). */
  withEnv(
    env: Record<string, string | undefined>,
    options?: { log?: Logger },
  ): Promise<{ url: string; deps: Services; close(): Promise<void> }>;
  close(): Promise<void>;
}

/** The environment every test stack starts from: the run's Temporal server, a private task queue and data dir. */
export function baseEnv(databaseUrl: string | undefined, taskQueue: string, dataDir: string): Record<string, string | undefined> {
  return {
    SVC_ENV: 'test',
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    TEMPORAL_TASK_QUEUE: taskQueue,
    SVC_WORKFLOW_BUNDLE: process.env.SVC_WORKFLOW_BUNDLE,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    PORT: '0',
    // Test files sign in many times from 127.0.0.1; the per-address code limit is tested on a stack of its own.
    SVC_CODE_IP_LIMIT: '1000000',
    // The general request limits are off: test files send bursts from one address and count their queries;
    // api/http/rate-limit.test.ts turns them on for its own stacks.
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_RATE_LIMIT_PER_IP: '0',
    SVC_HEALTH_LIMIT_PER_IP: '0',
  };
}

async function startApi(
  env: Record<string, string | undefined>,
  options: { log?: Logger; port?: number; sharedDb?: Db; migrate?: boolean } = {},
): Promise<{ deps: Services; config: Config; http: RunningServer }> {
  const { log, port = 0, sharedDb } = options;
  const config = loadConfig(env);
  const deps = await startServices(config, 'svc', { log: log ?? createLogger(config.logLevel), sharedDb });
  // A fresh PGlite is migrated as `npm start` migrates it, before anything is served.
  if (options.migrate) await migrateLatest(deps.db);
  const http = await startHttpServer(deps, { port, host: '127.0.0.1', surfaces: serviceSurfaces(deps.config) });
  return { deps, config, http };
}

/**
 * The database the test stacks of this run use: PostgreSQL (a fresh database per file), or, with
 * TEST_DB_DRIVER=pglite (npm test's PGlite phase), the embedded PGlite of `npm start`, one per file
 * in its data dir: one connection, so a query that escapes its transaction would deadlock there.
 */
export function testDbDriver(): DbDriver {
  return process.env.TEST_DB_DRIVER === 'pglite' ? 'pglite' : 'postgres';
}

export interface StackOptions {
  env?: Record<string, string | undefined>;
  worker?: boolean;
  log?: Logger;
  /**
   * The API listens on this port (see test/ports.ts freePort) instead of any: SVC_PUBLIC_URL and
   * SVC_APP_URL then default to http://localhost:<port>, so a browser follows links as they are sent.
   */
  port?: number;
  /** A stack of the file's own even without other settings, because the file changes it (stops its worker, say). */
  own?: boolean;
}

/** The shared stack of this process (npm test's batches), started by the first file that asks for one. */
let shared: Promise<Stack> | undefined;

/**
 * The real service for a test file: a database (PostgreSQL, or PGlite in the PGlite phase), the run's
 * Temporal dev server on a task queue of its own, a worker in process (unless `worker: false`) and the
 * API on port 0.
 *
 * In npm test's batch processes (test/batch.ts sets TEST_SHARED_STACK), a call without settings of its
 * own (no env, port, log, worker: false or own) answers the process's shared stack: the files of a
 * batch run one after another on it, each isolated by the fresh tenants, principals and keys its tests
 * make, and its close() leaves it running for the next file (test/batch.ts closes it at the end).
 * Any setting gives the file a stack of its own, as `npm test -- <file>` outside a batch always does.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const plain = !options.env && !options.port && !options.log && options.worker !== false && !options.own;
  if (!plain || process.env.TEST_SHARED_STACK !== '1') return startOwnStack(options);
  shared ??= startOwnStack({});
  const stack = await shared;
  // The next file starts with an empty mailbox: the same addresses (ann@example.test) recur across files.
  return { ...stack, close: async () => stack.smtp?.reset() };
}

/** Closes this process's shared stack, if a file started it (test/batch.ts, after the last file). */
export async function closeSharedStack(): Promise<void> {
  const stack = shared;
  shared = undefined;
  await (await stack)?.close();
}

async function startOwnStack(options: StackOptions): Promise<Stack> {
  const pglite = testDbDriver() === 'pglite';
  const postgres = pglite ? undefined : await createTestDatabase();
  const taskQueue = `test-${randomBase62(10)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-stack-'));
  // On PGlite, a copy of the run's migrated template (test/db.ts createTemplates), if there is one.
  if (pglite && process.env.TEST_PGLITE_TEMPLATE)
    fs.cpSync(process.env.TEST_PGLITE_TEMPLATE, pgliteDirectory(dataDir), { recursive: true });
  // Mail goes over real SMTP: the database keeps only redacted copies, never codes or link tokens.
  const smtp = options.env && 'SMTP_URL' in options.env ? undefined : await startSmtpListener();
  const env = {
    ...baseEnv(postgres?.url, taskQueue, dataDir),
    ...(options.port ? { PORT: String(options.port) } : {}),
    ...(smtp ? { SMTP_URL: smtp.url } : {}),
    ...options.env,
  };
  const { deps, config, http } = await startApi(env, { log: options.log, port: options.port, migrate: pglite });
  // On PGlite the stack's own connection is the database: one process may open it (closed with the services).
  const database: TestDatabase = postgres ?? { url: '', db: deps.db, drop: async () => undefined };
  const worker = options.worker === false ? undefined : await startWorker(deps);
  const extras: Array<() => Promise<void>> = [];
  return {
    url: http.url,
    env,
    deps,
    config,
    database,
    sharedDb: pglite ? deps.db : undefined,
    smtp,
    worker,
    async withEnv(overrides, options = {}) {
      // PGlite allows one process on its files: the other API shares this process's connection.
      const extra = await startApi({ ...env, ...overrides }, { sharedDb: pglite ? deps.db : undefined, log: options.log });
      const close = async () => {
        await extra.http.stop();
        await closeServices(extra.deps);
      };
      extras.push(close);
      return { url: extra.http.url, deps: extra.deps, close };
    },
    async close() {
      for (const close of extras) await close().catch(() => undefined);
      await http.stop();
      await worker?.stop();
      await closeServices(deps);
      await database.drop();
      await smtp?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
