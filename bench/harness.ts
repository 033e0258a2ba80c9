import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Services } from '../activities/services';
import { type RunningServer, startHttpServer } from '../api/server';
import { migrateLatest } from '../db/migrate';
import { loadConfig } from '../lib/config/config';
import { createLogger, type Logger } from '../lib/log';
import { type DevServer, startDevServer } from '../runtime/dev-server';
import { closeServices, createServices } from '../runtime/services';
import { ensureTemporalCli } from '../runtime/temporal-cli';
import { call } from '../test/http';
import { freePort } from '../test/ports';
import { type RunningWorker, startWorker } from '../worker/worker';

/**
 * The settings of a deployed API for a benchmark that measures what production runs: SVC_ENV=test
 * adds the suite's safety nets to every request (each response parsed against its schema, each error
 * code checked against its route's list), which production does not pay. No timestamp authority is
 * reachable here, so seals carry no timestamp: the apply benchmark's reference seals with the same
 * sealer, so both of its sides leave out the same round trip. Mail goes nowhere unless overridden.
 */
export const AS_DEPLOYED: Record<string, string> = {
  SVC_ENV: 'production',
  SVC_SECRET_KEY: randomBytes(32).toString('base64url'),
  SMTP_URL: 'smtp://127.0.0.1:9',
  SVC_ALLOW_UNTIMESTAMPED_SEALS: 'true',
};

export interface Harness {
  deps: Services;
  url: string;
  /** The environment the harness's configuration was read from, for API and worker processes beside it. */
  env: Record<string, string | undefined>;
  close(): Promise<void>;
}

/**
 * The whole service in this process for a benchmark: PostgreSQL at BENCH_DATABASE_URL or embedded
 * PGlite, TEMPORAL_ADDRESS or a dev server of its own, the worker and the API on a free port.
 */
export async function startHarness(
  env: Record<string, string> = {},
  options: { log?: Logger /** false: no worker in this process (processes of their own poll the task queue). */; worker?: boolean } = {},
): Promise<Harness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  let devServer: DevServer | undefined;
  if (!process.env.TEMPORAL_ADDRESS) {
    devServer = await startDevServer({
      binary: await ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI }),
      port: await freePort(),
      uiPort: 0,
      headless: true,
    });
  }
  const configEnv: Record<string, string | undefined> = {
    SVC_ENV: 'test',
    SVC_DATA_DIR: dataDir,
    DATABASE_URL: process.env.BENCH_DATABASE_URL,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? devServer!.address,
    TEMPORAL_TASK_QUEUE: `bench-${process.pid}`,
    LOG_LEVEL: 'error',
    // Requests are counted as in production (one write each) but never refused under load; 0 measures without the limiter.
    SVC_RATE_LIMIT_PER_KEY: process.env.SVC_RATE_LIMIT_PER_KEY ?? '1000000000',
    SVC_RATE_LIMIT_PER_IP: process.env.SVC_RATE_LIMIT_PER_IP ?? '1000000000',
    ...env,
  };
  const config = loadConfig(configEnv);
  const deps = createServices(config, { log: options.log ?? createLogger(config.logLevel) });
  await migrateLatest(deps.db);
  const worker: RunningWorker | undefined = options.worker === false ? undefined : await startWorker(deps);
  const http: RunningServer = await startHttpServer(deps, { port: 0, host: '127.0.0.1' });
  return {
    deps,
    url: http.url,
    env: configEnv,
    async close() {
      await http.stop();
      await worker?.stop();
      await closeServices(deps);
      await devServer?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** autocannon in its own process (asynchronously: the servers under test may live in this one). */
export async function autocannon(url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<Load> {
  const args = ['-c', String(connections), '-d', String(seconds), '-j'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const bin = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', '.bin', 'autocannon');
  const { stdout } = await promisify(execFile)(bin, [...args, url], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const report = JSON.parse(stdout);
  return {
    rps: report.requests.average,
    p50: report.latency.p50,
    p99: report.latency.p99,
    errors: report.errors + report.timeouts,
    non2xx: report.non2xx,
  };
}

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

export interface Service {
  child: ChildProcess;
  url?: string;
  stop(): Promise<void>;
}

/** `npm run api` or `npm run worker` as a process of its own, on the harness's database, task queue and data dir. */
export async function spawnService(kind: 'api' | 'worker', env: Record<string, string | undefined>): Promise<Service> {
  const port = kind === 'api' ? await freePort() : undefined;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'runtime', `${kind}.ts`)], {
    cwd: ROOT,
    env: { ...process.env, ...env, ...(port ? { PORT: String(port), HOST: '127.0.0.1' } : {}), LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = port ? `http://127.0.0.1:${port}` : undefined;
  if (url) {
    for (let i = 0; ; i += 1) {
      const health = await call(url, 'GET', '/v1/health').catch(() => undefined);
      if (health?.status === 200 || health?.status === 503) break;
      if (i > 600 || child.exitCode !== null) throw new Error(`${kind} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    child,
    url,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
