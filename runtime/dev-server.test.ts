import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Connection } from '@temporalio/client';
import { freePort } from '../test/ports';
import { type DevServer, DevServerError, startDevServer } from './dev-server';

describe('startDevServer answers only for the server it started', () => {
  const binary = process.env.TEMPORAL_CLI!;
  let scratch: string;
  const servers: DevServer[] = [];

  before(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dev-server-'));
  });

  after(async () => {
    for (const server of servers) await server.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /**
   * A server on a port free a moment ago. While the suite's other files run, a port freePort
   * found free can be taken (an outgoing connection's own port) before this server binds it: then it
   * is started again on another, as that is not what this test is about.
   */
  async function serverOnFreePort(logFile?: string): Promise<DevServer> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const server = await startDevServer({ binary, port: await freePort(), uiPort: 0, headless: true, logFile });
        servers.push(server);
        return server;
      } catch (error) {
        if (!(error instanceof DevServerError) || attempt === 3) throw error;
      }
    }
  }

  // The race a check before the start cannot close: the port is taken after it, before our server binds.
  it('refuses a port another Temporal server answers on, though that one answers', async () => {
    const other = await serverOnFreePort();
    const port = Number(other.address.split(':')[1]);
    const logFile = path.join(scratch, 'refused.log');
    const error = await startDevServer({ binary, port, uiPort: 0, headless: true, logFile }).then(
      () => assert.fail('started on a port another server answers'),
      (error: unknown) => error,
    );
    assert.ok(error instanceof DevServerError, String(error));
    // Either seen answering as someone else, or seen failing to bind: never taken for ours.
    if (error.port === undefined) assert.match(error.message, /exited with code 1 while starting: can't set frontend port/);
    else assert.equal(error.port, port);
    assert.ok(!error.message.includes('\n'), error.message);
    const connection = await Connection.connect({ address: other.address });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
  });

  it('settles `exited` with one line and its log when the server dies under it', async () => {
    const logFile = path.join(scratch, 'killed.log');
    const server = await serverOnFreePort(logFile);
    process.kill(server.pid, 'SIGKILL');
    // One line: how it ended, the last error it logged if any (a loaded server may log one before it dies), and its log.
    const said = await server.exited;
    assert.ok(said.startsWith('the Temporal dev server exited on SIGKILL'), said);
    assert.ok(said.endsWith(` (its log: ${logFile})`), said);
    assert.ok(!said.includes('\n'), said);
  });
});
