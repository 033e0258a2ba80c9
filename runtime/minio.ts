// MinIO for tests of the S3 blob store: found (MINIO_BINARY, the cache) or built once with go install,
// then run on loopback with a throwaway data directory.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, toolCacheDirectory } from './go-install';

/** The MinIO server commit that tests run against (a Go pseudo-version: MinIO tags no modules). */
export const MINIO_VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';
const MODULE = 'github.com/minio/minio';
const run = promisify(execFile);

/** The cached build's directory (beside the Temporal CLI's: runtime/go-install.ts). */
export function minioCacheDirectory(): string {
  return toolCacheDirectory(`minio-${MINIO_VERSION}`);
}

async function runs(binary: string): Promise<boolean> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 15_000 });
    return /^minio version /m.test(stdout);
  } catch {
    return false;
  }
}

/** The `minio` binary: MINIO_BINARY, else the cached build, else built once with `go install` into the cache. */
export async function ensureMinio(options: { explicit?: string; log?: (line: string) => void } = {}): Promise<string> {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  if (options.explicit) {
    if (!(await runs(options.explicit))) throw new Error(`MINIO_BINARY=${options.explicit} is not a runnable minio binary`);
    return options.explicit;
  }
  const cached = path.join(minioCacheDirectory(), 'minio');
  if (await runs(cached)) return cached;
  await goInstall({
    target: minioCacheDirectory(),
    module: MODULE,
    version: MINIO_VERSION,
    flags: ['-trimpath', '-ldflags', '-s -w'],
    what: 'the MinIO server',
    missing: 'no MinIO server found (MINIO_BINARY, cache) and Go is not installed to build it; set MINIO_BINARY',
    log,
  });
  if (!(await runs(cached))) throw new Error(`the MinIO build at ${cached} does not run`);
  return cached;
}

export interface RunningMinio {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  pid: number;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `minio server` on loopback with fresh root credentials and a data directory of its own
 * (removed by stop()), and waits until /minio/health/live answers.
 */
export async function startMinio(options: {
  binary: string;
  port: number;
  consolePort?: number;
  /** Kept as is by stop(); omitted means a temporary directory that stop() removes. */
  dataDir?: string;
  logFile?: string;
  readyTimeoutMs?: number;
}): Promise<RunningMinio> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-minio-'));
  const accessKey = `svc${randomBytes(6).toString('hex')}`;
  const secretKey = randomBytes(24).toString('base64url');
  const consolePort = options.consolePort ?? options.port + 1;
  const output = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(
    options.binary,
    ['server', dataDir, '--quiet', '--address', `127.0.0.1:${options.port}`, '--console-address', `127.0.0.1:${consolePort}`],
    {
      stdio: ['ignore', output, output],
      // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it last.
      detached: true,
      env: {
        ...process.env,
        MINIO_ROOT_USER: accessKey,
        MINIO_ROOT_PASSWORD: secretKey,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
        MINIO_CALLHOME_ENABLE: 'off',
      },
    },
  );
  if (typeof output === 'number') fs.closeSync(output);
  const endpoint = `http://127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(timer);
    }
    if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
    for (;;) {
      if (child.exitCode !== null) throw new Error(`minio exited with code ${child.exitCode} while starting`);
      const live = await fetch(`${endpoint}/minio/health/live`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      if (live?.ok) break;
      if (Date.now() > deadline) throw new Error(`minio did not answer at ${endpoint} within ${options.readyTimeoutMs ?? 30_000} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, accessKey, secretKey, pid: child.pid!, stop };
}

// `node --import tsx runtime/minio.ts` prints the binary's path (building it when missing).
if (process.argv[1] && path.resolve(process.argv[1]) === new URL(import.meta.url).pathname) {
  ensureMinio({ explicit: process.env.MINIO_BINARY }).then(
    (binary) => process.stdout.write(`${binary}\n`),
    (error: Error) => {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    },
  );
}
