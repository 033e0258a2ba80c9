import assert from 'node:assert/strict';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import protos from '@temporalio/proto';
import { call } from '../test/http';
import {
  assertNothingLeft,
  embeddedSetup,
  exitOf,
  holdPort,
  killLeftovers,
  killStarted,
  type NpmStart,
  npmStart,
  portOpen,
  type ServicePorts,
  serviceErrorLines,
  untilRunning,
} from '../test/npm-start';
import { freePort } from '../test/ports';
import { type DevServer, startDevServer } from './dev-server';

describe('npm start refuses what it cannot own, in one line', () => {
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let ports: ServicePorts;
  const holders: net.Server[] = [];
  let otherTemporal: DevServer | undefined;
  const undo: Array<() => void> = [];

  before(async () => {
    ({ dataDir, env, ports } = await embeddedSetup());
  });

  // What a test holds goes after it, passed or failed, so the next one starts clean.
  afterEach(async () => {
    killStarted(dataDir);
    for (const holder of holders.splice(0)) holder.close();
    for (const step of undo.splice(0)) step();
    await otherTemporal?.stop();
    otherTemporal = undefined;
  });

  after(() => killLeftovers(dataDir));

  /** Runs npm start to its exit, which must be 1 with one line of its own on stderr, and answers that line. */
  async function refusal(started: NpmStart): Promise<string> {
    const exit = await exitOf(started);
    assert.equal(exit.code, 1, started.output());
    const lines = serviceErrorLines(started.errors());
    assert.equal(lines.length, 1, `one line expected on stderr:\n${started.errors()}`);
    return lines[0];
  }

  async function assertNothingStarted(started: NpmStart, openPorts: number[]) {
    const closed = [ports.api, ports.temporal, ports.ui].filter((port) => !openPorts.includes(port));
    await assertNothingLeft({ started, pids: [], ports: closed, dataDir });
    assert.equal(fs.existsSync(path.join(dataDir, 'temporal.log')), false, 'a dev server was started');
  }

  for (const variable of ['PORT', 'TEMPORAL_UI_PORT'] as const) {
    it(`a port another program holds (${variable}) stops the start before anything starts`, async () => {
      const port = variable === 'PORT' ? ports.api : ports.ui;
      holders.push(await holdPort(port));
      const started = npmStart(env);
      assert.equal(
        await refusal(started),
        `port ${port} (${variable}) is in use by another process: stop it, or set ${variable} to a free port`,
      );
      await assertNothingStarted(started, [port]);
    });
  }

  it('a Temporal server already on TEMPORAL_DEV_PORT is refused, never used: no workflow, no poller there', async () => {
    otherTemporal = await startDevServer({ binary: process.env.TEMPORAL_CLI!, port: ports.temporal, uiPort: 0, headless: true });
    const started = npmStart(env);
    assert.equal(
      await refusal(started),
      `port ${ports.temporal} (TEMPORAL_DEV_PORT) is in use by another process: stop it, or set TEMPORAL_DEV_PORT to a free port`,
    );
    await assertNothingStarted(started, [ports.temporal]);
    const connection = await Connection.connect({ address: otherTemporal.address });
    try {
      const client = new Client({ connection });
      assert.equal((await client.workflow.count()).count, 0, 'npm start started workflows on the other server');
      const queue = await connection.workflowService.describeTaskQueue({
        namespace: 'default',
        taskQueue: { name: 'svc', kind: protos.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        taskQueueType: protos.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
      });
      assert.equal(queue.pollers?.length ?? 0, 0, 'npm start polled the other server');
    } finally {
      await connection.close();
    }
  });

  it('another service on the data dir: one line naming SVC_DATA_DIR', async () => {
    const lock = path.join(dataDir, 'svc.pid');
    fs.writeFileSync(lock, String(process.pid));
    undo.push(() => fs.rmSync(lock, { force: true }));
    const started = npmStart(env);
    const line = await refusal(started);
    fs.rmSync(lock);
    assert.equal(line, `another service (pid ${process.pid}) is running on ${dataDir}: stop it, or set SVC_DATA_DIR to another directory`);
    await assertNothingStarted(started, []);
  });

  it('a dev server that fails while starting: one line with its reason and its log, nothing left', async () => {
    const database = path.join(dataDir, 'temporal.sqlite');
    const log = path.join(dataDir, 'temporal.log');
    fs.rmSync(database, { recursive: true, force: true });
    fs.mkdirSync(database);
    undo.push(() => fs.rmSync(database, { recursive: true, force: true }));
    undo.push(() => fs.rmSync(log, { force: true }));
    const started = npmStart(env);
    const line = await refusal(started);
    assert.match(line, /^the Temporal dev server exited with code 1 while starting: .*SQLite.* \(its log: (.+)\)$/);
    assert.equal(line.match(/its log: (.+)\)$/)?.[1], log);
    await assertNothingLeft({ started, pids: [], ports: [ports.api, ports.temporal, ports.ui], dataDir });
  });

  it('a dev server that dies while the service runs: the service stops everything and exits 1, saying so in one line', async () => {
    const started = npmStart(env);
    const { nodePid, temporalPid } = await untilRunning(started, dataDir);
    process.kill(temporalPid, 'SIGKILL');
    const exit = await exitOf(started);
    assert.equal(exit.code, 1, started.output());
    // Its log lines (JSON) aside, what it says on stderr.
    const [line, ...rest] = serviceErrorLines(started.errors()).filter((text) => !text.startsWith('{'));
    assert.equal(line, `the Temporal dev server exited on SIGKILL (its log: ${path.join(dataDir, 'temporal.log')}): stopping ...`);
    assert.deepEqual(rest, [], started.errors());
    await assertNothingLeft({ started, pids: [nodePid, temporalPid], ports: [ports.api, ports.temporal, ports.ui], dataDir });
  });

  it('with TEMPORAL_ADDRESS set, only PORT is checked (no dev server), and PORT=0 picks a free port', async () => {
    // The test run's Temporal server, on a task queue of this test's own.
    const taken = await holdPort(await freePort());
    holders.push(taken);
    const takenPort = (taken.address() as net.AddressInfo).port;
    // A data dir of its own: nothing an earlier start left there can stand for a dev server of this one.
    const ownDataDir = fs.mkdtempSync(`${dataDir}-address-`);
    undo.push(() => fs.rmSync(ownDataDir, { recursive: true, force: true }));
    const started = npmStart({
      ...env,
      SVC_DATA_DIR: ownDataDir,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: `start-ports-${process.pid}`,
      PORT: '0',
      TEMPORAL_DEV_PORT: String(takenPort),
    });
    await untilRunning(started, ownDataDir).catch((error: Error) => assert.fail(`${error.message}\n${started.output()}`));
    const port = Number(/listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(started.output())?.[1]);
    assert.ok(port > 0, started.output());
    const health = await call(`http://127.0.0.1:${port}`, 'GET', '/v1/health');
    assert.equal(health.status, 200, health.text);
    assert.equal(fs.existsSync(path.join(ownDataDir, 'temporal.pid')), false, 'a dev server was started');
    process.kill(started.child.pid!, 'SIGTERM');
    assert.deepEqual(await exitOf(started), { code: 0, signal: null }, started.output());
    assert.equal(await portOpen(port), false);
  });
});
