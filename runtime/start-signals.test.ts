import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { waitFor } from '../test/cli';
import { call } from '../test/http';
import {
  assertNothingLeft,
  embeddedSetup,
  exitOf,
  killLeftovers,
  killStarted,
  type NpmStart,
  npmStart,
  type ServicePorts,
  untilRunning,
} from '../test/npm-start';

// A supervisor, `kill` or `timeout` signals the npm process alone, not its group as a terminal does.
describe('npm start stops everything it started on a signal to one process', () => {
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let ports: ServicePorts;

  before(async () => {
    ({ dataDir, env, ports } = await embeddedSetup());
  });

  afterEach(() => killStarted(dataDir));
  after(() => killLeftovers(dataDir));

  async function assertStopped(started: NpmStart, pids: number[]) {
    const exit = await exitOf(started);
    await assertNothingLeft({ started, pids, ports: [ports.api, ports.temporal, ports.ui], dataDir });
    assert.deepEqual(exit, { code: 0, signal: null }, started.output());
    assert.match(started.output(), /stopped/);
  }

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to the npm process: the service stops gracefully, and npm exits after it`, async () => {
      const started = npmStart(env);
      const { nodePid, temporalPid } = await untilRunning(started, dataDir);
      assert.equal((await call(`http://127.0.0.1:${ports.api}`, 'GET', '/v1/health')).status, 200);
      process.kill(started.child.pid!, signal);
      await assertStopped(started, [nodePid, temporalPid]);
      assert.match(started.output(), new RegExp(`${signal}: stopping`));
    });
  }

  it('SIGTERM to the node process: the service stops gracefully, and npm exits with it', async () => {
    const started = npmStart(env);
    const { nodePid, temporalPid } = await untilRunning(started, dataDir);
    process.kill(nodePid, 'SIGTERM');
    await assertStopped(started, [nodePid, temporalPid]);
  });

  it('SIGTERM to the npm process during start-up: what has started so far stops, the dev server too', async () => {
    const started = npmStart(env);
    const temporalPid = await waitFor('the dev server to start', () => {
      assert.equal(started.child.exitCode, null, started.output());
      return fs.existsSync(path.join(dataDir, 'temporal.pid')) && Number(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8'));
    });
    const nodePid = Number(fs.readFileSync(path.join(dataDir, 'svc.pid'), 'utf8'));
    assert.doesNotMatch(started.output(), /Service is running/);
    process.kill(started.child.pid!, 'SIGTERM');
    await assertStopped(started, [nodePid, temporalPid]);
    assert.doesNotMatch(started.output(), /Service is running/);
  });
});
