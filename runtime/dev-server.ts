import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';

export interface DevServerOptions {
  binary: string;
  port: number;
  uiPort: number;
  /** SQLite file for durable state; omitted means in memory (tests). */
  dbFile?: string;
  /** Where the server's own output goes; omitted means discarded. */
  logFile?: string;
  headless?: boolean;
  readyTimeoutMs?: number;
}

export interface DevServer {
  address: string;
  uiUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the Temporal dev server exited with code ${child.exitCode} while starting`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`the Temporal dev server did not answer at ${address} within ${timeoutMs} ms: ${String(lastError)}`);
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts `temporal server start-dev` on loopback as a child process and waits until it answers. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  // Eager activities: the workflow task that schedules an apply hands it to the same worker at once
  // (no round trip through the activity task queue; docs/performance.md). Production Temporal
  // servers get the same setting from their dynamic config (docker-compose: deploy/temporal).
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  const output = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(options.binary, args, {
    stdio: ['ignore', output, output],
    // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it after the worker.
    detached: true,
    env: { ...process.env, TEMPORAL_ADDRESS: undefined },
  });
  if (typeof output === 'number') fs.closeSync(output);
  const address = `127.0.0.1:${options.port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited(child);
    clearTimeout(timer);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    await waitUntilServing(address, child, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    address,
    uiUrl: options.headless ? undefined : `http://localhost:${options.uiPort}`,
    pid: child.pid!,
    stop,
  };
}
