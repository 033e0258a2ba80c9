// Real processes for the reliability tests (npm run test:reliability): a worker as its own OS process
// that can be killed and started again, a Temporal dev server and a PostgreSQL cluster of a test's own
// that can be stopped and started on the same port and state, and a seeded random source.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import protos from '@temporalio/proto';
import type { TemporalDeps } from '../../lib/temporal';
import { type DevServer, startDevServer } from '../../runtime/dev-server';
import { ensureTemporalCli } from '../../runtime/temporal-cli';
import { type Spawned, spawnNpm, stopGroup } from '../cli';
import { call } from '../http';
import { freePort } from '../ports';
import { waitFor } from '../wait';

const run = promisify(execFile);

/** A line of figures on stdout, where the run's summary collects them (prefixed so they are easy to grep). */
export function figure(scenario: string, text: string): void {
  process.stdout.write(`[reliability] ${scenario}: ${text}\n`);
}

/** The seed of this run's random choices: RELIABILITY_SEED when given (to replay a run), else a fresh one. */
export function reliabilitySeed(): number {
  const given = Number.parseInt(process.env.RELIABILITY_SEED ?? '', 10);
  return Number.isFinite(given) ? given >>> 0 : Math.floor(Math.random() * 2 ** 32);
}

/** mulberry32: a small seeded generator, so a failing run's kill moments can be replayed from its seed. */
export function seededRandom(seed: number): { next(): number; between(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return { next, between: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `npm run worker` as its own process group, on a stack's environment: `kill()` is SIGKILL to the
 * whole group (npm and node, nothing drains), `start()` a fresh process with the same environment.
 */
export class WorkerProcess {
  private current?: Spawned;
  /** Output of every process this one started, oldest first (for failure messages). */
  private readonly outputs: Array<() => string> = [];
  starts = 0;
  kills = 0;
  private startedAt = 0;

  constructor(private readonly env: Record<string, string | undefined>) {}

  start(): this {
    if (this.current && this.alive()) throw new Error('the worker is already running');
    this.current = spawnNpm(['run', '--silent', 'worker'], { ...process.env, ...this.env });
    this.outputs.push(this.current.output);
    this.starts += 1;
    this.startedAt = Date.now();
    return this;
  }

  alive(): boolean {
    const pid = this.current?.child.pid;
    if (!pid) return false;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Whether the process exited by itself (not killed by us): a worker must outlive its dependencies' outages. */
  exitedByItself(): boolean {
    const child = this.current?.child;
    return Boolean(child && child.exitCode !== null && child.signalCode === null);
  }

  async kill(): Promise<void> {
    if (!this.current) return;
    await stopGroup(this.current.child.pid!, 'SIGKILL');
    this.kills += 1;
  }

  async stop(): Promise<void> {
    if (this.current && this.alive())
      await stopGroup(this.current.child.pid!, 'SIGTERM').catch(() => stopGroup(this.current!.child.pid!, 'SIGKILL'));
  }

  output(): string {
    return this.outputs.map((output, index) => `--- worker process ${index + 1} ---\n${output()}`).join('\n');
  }

  /**
   * Until a process of this worker's current process group polls the task queue (pollers are named
   * `<pid>@<host>`; a killed worker's poller stays listed for a while, so the health count cannot tell).
   * Answers the milliseconds since its start.
   */
  async pollingAgain(temporal: TemporalDeps, timeoutMs = 60_000): Promise<number> {
    const group = this.current?.child.pid;
    const startedAt = this.startedAt;
    await waitFor(
      'the restarted worker to poll',
      async () => {
        const response = await temporal.connection.workflowService
          .describeTaskQueue({
            namespace: temporal.namespace,
            taskQueue: { name: temporal.taskQueue, kind: protos.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
            taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
          })
          .catch(() => undefined);
        return response?.pollers?.some((poller) => processGroupOf(Number.parseInt(poller.identity ?? '', 10)) === group);
      },
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.output()}`);
    });
    return Date.now() - startedAt;
  }

  /** Until GET /v1/health of `apiUrl` counts a poller on the task queue (this worker, once it polls). */
  async polling(apiUrl: string, timeoutMs = 60_000): Promise<void> {
    await waitFor(
      'the worker process to poll the task queue',
      async () => ((await call(apiUrl, 'GET', '/v1/health').catch(() => undefined))?.body?.worker?.pollers ?? 0) >= 1,
      timeoutMs,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${this.output()}`);
    });
  }
}

/** The process group of a process (from /proc), undefined when it is gone. */
function processGroupOf(pid: number): number | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp ...": comm may hold spaces, so read after its ")".
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** A Temporal dev server of one test file, its state in a SQLite file, so it can be stopped and started again. */
export class PersistentTemporal {
  private server?: DevServer;
  readonly dbFile: string;
  readonly logFile: string;

  private constructor(
    private readonly binary: string,
    readonly port: number,
    directory: string,
  ) {
    this.dbFile = path.join(directory, 'temporal.sqlite');
    this.logFile = path.join(directory, 'temporal.log');
  }

  static async create(directory: string): Promise<PersistentTemporal> {
    const binary = await ensureTemporalCli({ explicit: process.env.TEMPORAL_CLI });
    const temporal = new PersistentTemporal(binary, await freePort(), directory);
    await temporal.start();
    return temporal;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = await startDevServer({
      binary: this.binary,
      port: this.port,
      uiPort: 0,
      headless: true,
      dbFile: this.dbFile,
      logFile: this.logFile,
    });
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.server = undefined;
  }
}

/** The directory of PostgreSQL's server programs (initdb, pg_ctl), newest major version first. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = path.join(root, version, 'bin');
    if (fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  throw new Error('no PostgreSQL server programs under /usr/lib/postgresql/*/bin (initdb, pg_ctl)');
}

/**
 * A PostgreSQL cluster of one test file (never the machine's shared one): initdb into a temp dir
 * with trust auth, on a free loopback port; `stop()` and `start()` keep its data and port.
 */
export class PrivatePostgres {
  private readonly bin = postgresBin();
  private readonly asUser: string[];

  private constructor(
    readonly directory: string,
    readonly port: number,
  ) {
    // initdb and postgres refuse to run as root: the cluster then belongs to the postgres user.
    this.asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
  }

  static async create(): Promise<PrivatePostgres> {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pg-'));
    const cluster = new PrivatePostgres(directory, await freePort());
    if (cluster.asUser.length > 0) await run('chown', ['postgres:postgres', directory]);
    await cluster.exec('initdb', ['-D', cluster.dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await cluster.start();
    return cluster;
  }

  get dataDir(): string {
    return path.join(this.directory, 'data');
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private async exec(program: string, args: string[]): Promise<string> {
    const [command, ...prefix] = [...this.asUser, path.join(this.bin, program)];
    const { stdout } = await run(command, [...prefix, ...args], { timeout: 120_000 });
    return stdout;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -h 127.0.0.1 -k ${this.directory} -c fsync=off -c max_connections=200`;
    await this.exec('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      path.join(this.directory, 'server.log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** `pg_ctl stop -m fast`: every session is terminated, new connections are refused until start(). */
  async stop(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
    fs.rmSync(this.directory, { recursive: true, force: true });
  }
}

/** Runs `task` for each item with at most `limit` at once, answering results in order. */
export async function inParallel<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
