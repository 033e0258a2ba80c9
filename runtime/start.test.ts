import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alive, groupAlive, runAdmin, type Spawned, spawnNpm, waitFor } from '../test/cli';
import { call } from '../test/http';
import { freePort } from '../test/ports';

interface Started extends Spawned {
  exited: Promise<number | null>;
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** `npm start` in its own process group, as a terminal would run it. */
function npmStart(env: Record<string, string | undefined>): Started {
  const started = spawnNpm(['start'], env);
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  return { ...started, exited };
}

describe('npm start on embedded defaults', () => {
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let ports: { api: number; temporal: number; ui: number };
  const groups: number[] = [];

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
    ports = { api: await freePort(), temporal: await freePort(), ui: await freePort() };
    // The embedded defaults: no DATABASE_URL, no TEMPORAL_ADDRESS, no prebuilt workflow bundle.
    const { DATABASE_URL, TEMPORAL_ADDRESS, SVC_WORKFLOW_BUNDLE, TEST_DATABASE_URL, ...inherited } = process.env;
    env = {
      ...inherited,
      SVC_DATA_DIR: dataDir,
      PORT: String(ports.api),
      TEMPORAL_DEV_PORT: String(ports.temporal),
      TEMPORAL_UI_PORT: String(ports.ui),
    };
  });

  after(() => {
    for (const pgid of groups) {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
    const pidFile = path.join(dataDir, 'temporal.pid');
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, 'utf8'));
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<Started & { temporalPid: number }> {
    const started = npmStart(env);
    groups.push(started.child.pid!);
    await waitFor(
      'the service to start',
      () => started.output().includes('Press Ctrl-C to stop.') || started.child.exitCode !== null,
      180_000,
    );
    assert.equal(started.child.exitCode, null, `npm start exited early:\n${started.output()}`);
    const temporalPid = Number(fs.readFileSync(path.join(dataDir, 'temporal.pid'), 'utf8'));
    return { ...started, temporalPid };
  }

  async function stopWithCtrlC(started: Started & { temporalPid: number }) {
    process.kill(-started.child.pid!, 'SIGINT');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([started.exited, new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 60_000)))]);
    clearTimeout(timer);
    assert.notEqual(code, 'timeout', `npm start did not stop on Ctrl-C:\n${started.output()}`);
    assert.match(started.output(), /stopped/);
    await waitFor('every started process to exit', () => !groupAlive(started.child.pid!) && !alive(started.temporalPid), 20_000);
    for (const port of [ports.api, ports.temporal, ports.ui]) assert.equal(await portOpen(port), false, `port ${port} still open`);
    assert.equal(fs.existsSync(path.join(dataDir, 'admin.sock')), false, 'admin socket left behind');
    assert.equal(fs.existsSync(path.join(dataDir, 'svc.pid')), false, 'lock file left behind');
  }

  it('serves health and /me, answers admin commands while running, and stops on Ctrl-C leaving no process behind', async () => {
    // Before the service runs, admin opens the embedded database itself.
    const principal = await runAdmin(['create-principal', '--email', 'ann@start.test', '--name', 'Ann'], env);
    assert.equal(principal.code, 0, principal.stderr);

    const started = await start();
    const out = started.output();
    assert.match(out, new RegExp(`API\\s+http://localhost:${ports.api}/v1`));
    assert.match(out, new RegExp(`App\\s+http://localhost:${ports.api}/app`));
    assert.match(out, new RegExp(`Temporal UI\\s+http://localhost:${ports.ui}`));

    const base = `http://127.0.0.1:${ports.api}`;
    const health = await call(base, 'GET', '/v1/health');
    assert.equal(health.status, 200, health.text);
    assert.equal(health.body.status, 'ok');
    assert.equal(health.body.database.driver, 'pglite');
    assert.equal(health.body.worker.ok, true);
    assert.equal((await fetch(`http://127.0.0.1:${ports.ui}/`)).status, 200, 'Temporal UI');
    assert.equal((await fetch(`${base}/app`)).status, 200, 'principal app');

    // While it runs, admin goes through the service (PGlite allows one process).
    const key = await runAdmin(['create-key', '--email', 'ann@start.test', '--label', 'start agent'], env);
    assert.equal(key.code, 0, key.stderr);
    const me = await call(base, 'GET', '/v1/me', { key: key.json.key });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.principal.email, 'ann@start.test');
    assert.equal(me.body.tenant_id, principal.json.tenant_id);

    await stopWithCtrlC(started);

    // State is kept under SVC_DATA_DIR: the key works after a restart.
    const again = await start();
    const meAgain = await call(base, 'GET', '/v1/me', { key: key.json.key });
    assert.equal(meAgain.status, 200, meAgain.text);
    assert.equal(meAgain.body.key.label, 'start agent');
    await stopWithCtrlC(again);
  });
});
