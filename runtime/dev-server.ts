import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeTypeName } from '../worker/search-attributes';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
import { loopbackListener } from './listeners';

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
  /** Settles when the server exits, stopped or not, with a line saying how and where its log is. */
  exited: Promise<string>;
  stop(): Promise<void>;
}

/** The dev server did not come up as the one started here; `port` is set when another process answers it. */
export class DevServerError extends Error {
  override name = 'DevServerError';
  constructor(
    message: string,
    readonly port?: number,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function howExited(child: ChildProcess): string {
  return child.exitCode !== null ? `with code ${child.exitCode}` : `on ${child.signalCode}`;
}

/** The last error the server logged since `offset` (its own words: a port it could not bind, a bad file). */
function lastLoggedError(logFile: string, offset: number): string | undefined {
  try {
    const text = fs.readFileSync(logFile, 'utf8').slice(offset);
    const errors = [...text.matchAll(/level=(?:ERROR|FATAL) msg="((?:[^"\\]|\\.)*)"/g)];
    return errors.at(-1)?.[1].replace(/\\"/g, '"');
  } catch {
    return undefined;
  }
}

/** Starts `temporal server start-dev` on loopback as a child process and waits until it answers as itself. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port), '--log-level', 'warn'];
  // Eager activities: the workflow task that schedules an apply hands it to the same worker at once
  // (no round trip through the activity task queue; docs/performance.md). Production Temporal
  // servers get the same setting from their dynamic config (docker-compose: deploy/temporal).
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  // Operators find work by the service's search attributes (docs/operations.md); a kept database
  // registered them before, and the worker adds any missing at boot.
  for (const key of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${key.name}=${searchAttributeTypeName(key)}`);
  if (options.headless) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) {
    fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
    args.push('--db-filename', options.dbFile);
  }
  const output = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const logOffset = typeof output === 'number' ? fs.fstatSync(output).size : 0;
  const child = spawn(options.binary, args, {
    stdio: ['ignore', output, output],
    // Its own process group: a terminal's Ctrl-C reaches only us, and we stop it after the worker.
    detached: true,
    env: { ...process.env, TEMPORAL_ADDRESS: undefined },
  });
  if (typeof output === 'number') fs.closeSync(output);
  // Whatever way this process exits (a failed start, a second Ctrl-C), the server is not left running.
  const stopOnExit = () => child.kill('SIGTERM');
  process.once('exit', stopOnExit);
  const failure = (what: string, port?: number) => {
    const reason = options.logFile ? lastLoggedError(options.logFile, logOffset) : undefined;
    const log = options.logFile ? ` (its log: ${options.logFile})` : '';
    return new DevServerError(`the Temporal dev server ${what}${reason ? `: ${reason}` : ''}${log}`, port);
  };
  const exited = new Promise<string>((resolve) =>
    child.once('exit', () => {
      process.off('exit', stopOnExit);
      resolve(failure(`exited ${howExited(child)}`).message);
    }),
  );
  const address = `127.0.0.1:${options.port}`;
  const stop = async () => {
    if (hasExited(child)) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    await waitUntilServing(address, child, deadline, failure);
    // Answering is not enough: a server that held the port first answers too, while ours fails to bind it.
    await waitUntilListening(child, options.port, deadline, failure);
    if (!options.headless) await waitUntilListening(child, options.uiPort, deadline, failure);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    address,
    uiUrl: options.headless ? undefined : `http://localhost:${options.uiPort}`,
    pid: child.pid!,
    exited,
    stop,
  };
}

type Failure = (what: string, port?: number) => DevServerError;

async function waitUntilServing(address: string, child: ChildProcess, deadline: number, failure: Failure): Promise<void> {
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (hasExited(child)) throw failure(`exited ${howExited(child)} while starting`);
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
      await sleep(250);
    }
  }
  throw failure(`did not answer at ${address} in time: ${String(lastError).split('\n')[0]}`);
}

/** Waits until the child itself listens on 127.0.0.1:port, failing when another process does or it exits. */
async function waitUntilListening(child: ChildProcess, port: number, deadline: number, failure: Failure): Promise<void> {
  for (;;) {
    if (hasExited(child)) throw failure(`exited ${howExited(child)} while starting`);
    const listener = loopbackListener(child.pid!, port);
    if (listener === 'owner') return;
    if (listener === 'other') throw failure(`could not listen on 127.0.0.1:${port}: another process answers there`, port);
    if (listener === 'unknown') {
      // Without /proc, the best sign: a server that failed to bind exits within moments of starting.
      await sleep(1000);
      if (hasExited(child)) throw failure(`exited ${howExited(child)} while starting`);
      return;
    }
    if (Date.now() > deadline) throw failure(`did not listen on 127.0.0.1:${port} in time`);
    await sleep(100);
  }
}
