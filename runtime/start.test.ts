import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runAdmin } from '../test/cli';
import { call } from '../test/http';
import { type EmbeddedSetup, embeddedSetup, killLeftovers, type ServicePorts, startRunning, stopWithCtrlC } from '../test/npm-start';

describe('npm start on embedded defaults', () => {
  let setup: EmbeddedSetup;
  let dataDir: string;
  let env: Record<string, string | undefined>;
  let ports: ServicePorts;

  before(async () => {
    setup = await embeddedSetup();
    ({ dataDir, env, ports } = setup);
  });

  after(() => killLeftovers(dataDir));

  const start = () => startRunning(setup);

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

    await stopWithCtrlC(started, setup);

    // State is kept under SVC_DATA_DIR: the key works after a restart.
    const again = await start();
    const meAgain = await call(base, 'GET', '/v1/me', { key: key.json.key });
    assert.equal(meAgain.status, 200, meAgain.text);
    assert.equal(meAgain.body.key.label, 'start agent');
    await stopWithCtrlC(again, setup);
  });
});
