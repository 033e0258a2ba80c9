import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { alive, groupAlive, type Spawned, spawnNpm, waitFor } from './cli';
import { freePort } from './ports';

export interface ServicePorts {
  api: number;
  temporal: number;
  ui: number;
}

export interface EmbeddedSetup {
  dataDir: string;
  ports: ServicePorts;
  env: Record<string, string | undefined>;
}

/** A fresh data dir and free ports on the embedded defaults: no DATABASE_URL, TEMPORAL_ADDRESS or prebuilt workflow bundle. */
export async function embeddedSetup(): Promise<EmbeddedSetup> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
  const ports = { api: await freePort(), temporal: await freePort(), ui: await freePort() };
  const { DATABASE_URL, TEMPORAL_ADDRESS, SVC_WORKFLOW_BUNDLE, TEST_DATABASE_URL, ...inherited } = process.env;
  const env = {
    ...inherited,
    SVC_DATA_DIR: dataDir,
    PORT: String(ports.api),
    TEMPORAL_DEV_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
  };
  return { dataDir, ports, env };
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A listener holding a port, as another program would. */
export async function holdPort(port: number): Promise<net.Server> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

export interface NpmStart extends Spawned {
  /** npm's exit: its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every `npm start` a test file ran and every dev server one reported, for killLeftovers. */
const starts: NpmStart[] = [];
const temporalPids = new Set<number>();

/** `npm start` in its own process group, as a terminal would run it. */
export function npmStart(env: Record<string, string | undefined>): NpmStart {
  const spawned = spawnNpm(['start'], env);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    spawned.child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = { ...spawned, exited };
  starts.push(started);
  return started;
}

function pidIn(file: string): number | undefined {
  try {
    return Number.parseInt(fs.readFileSync(file, 'utf8'), 10) || undefined;
  } catch {
    return undefined;
  }
}

/** Waits until the service says it runs; answers the pids its data dir records: its node process and its dev server. */
export async function untilRunning(started: NpmStart, dataDir: string): Promise<{ nodePid: number; temporalPid: number }> {
  await waitFor(
    'the service to start',
    () => started.output().includes('Press Ctrl-C to stop.') || started.child.exitCode !== null,
    180_000,
  );
  assert.equal(started.child.exitCode, null, `npm start exited early:\n${started.output()}`);
  const temporalPid = pidIn(path.join(dataDir, 'temporal.pid'));
  if (temporalPid) temporalPids.add(temporalPid);
  return { nodePid: pidIn(path.join(dataDir, 'svc.pid'))!, temporalPid: temporalPid! };
}

/** npm's exit, failing with its output when it does not come within `timeoutMs`. */
export async function exitOf(started: NpmStart, timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    started.exited,
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (result === 'timeout') assert.fail(`npm start did not exit within ${timeoutMs} ms:\n${started.output()}`);
  return result;
}

/** Asserts that nothing a start started is left: its processes, its ports, the admin socket and the pid files. */
export async function assertNothingLeft(options: { started: NpmStart; pids: number[]; ports: number[]; dataDir: string }): Promise<void> {
  const { started, pids, ports, dataDir } = options;
  const left = () => [...pids.filter(alive), ...(groupAlive(started.child.pid!) ? [`group ${started.child.pid}`] : [])];
  await waitFor('every started process to exit', () => left().length === 0, 20_000).catch(() =>
    assert.fail(`still running: ${left().join(', ')}\n${started.output()}`),
  );
  for (const port of ports) assert.equal(await portOpen(port), false, `port ${port} still open`);
  for (const file of ['admin.sock', 'svc.pid', 'temporal.pid']) {
    assert.equal(fs.existsSync(path.join(dataDir, file)), false, `${file} left behind`);
  }
}

/** What the service wrote on stderr, without npm's own lines (its warnings and errors). */
export function serviceErrorLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !/^npm (warn|error|notice)/.test(line));
}

function isDevServer(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('start-dev');
  } catch {
    return false;
  }
}

/** Kills whatever the starts so far left running (after a failed test), so the next test starts clean. */
export function killStarted(dataDir: string): void {
  for (const started of starts.splice(0)) {
    if (groupAlive(started.child.pid!)) process.kill(-started.child.pid!, 'SIGKILL');
  }
  const recorded = pidIn(path.join(dataDir, 'temporal.pid'));
  for (const pid of [...temporalPids, ...(recorded ? [recorded] : [])]) {
    if (alive(pid) && isDevServer(pid)) process.kill(pid, 'SIGKILL');
  }
  temporalPids.clear();
}

/** killStarted, then the data dir goes. */
export function killLeftovers(dataDir: string): void {
  killStarted(dataDir);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** An `npm start` that says it runs, with the pids its data dir records. */
export type RunningStart = NpmStart & { nodePid: number; temporalPid: number };

/** `npm start` on an embedded setup, once it says it runs. */
export async function startRunning(setup: EmbeddedSetup): Promise<RunningStart> {
  const started = npmStart(setup.env);
  return { ...started, ...(await untilRunning(started, setup.dataDir)) };
}

/** Ctrl-C as a terminal sends it (to npm's process group): one graceful stop, and nothing it started is left. */
export async function stopWithCtrlC(started: RunningStart, setup: EmbeddedSetup): Promise<void> {
  process.kill(-started.child.pid!, 'SIGINT');
  await exitOf(started);
  assert.match(started.output(), /stopped/);
  // npm forwards the Ctrl-C the service got from the terminal too: one stop, not a forced exit.
  assert.doesNotMatch(started.output(), /again: exiting now/);
  await assertNothingLeft({
    started,
    pids: [started.nodePid, started.temporalPid],
    ports: [setup.ports.api, setup.ports.temporal, setup.ports.ui],
    dataDir: setup.dataDir,
  });
}
