import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { randomBase62 } from '../lib/ids';
import { type Spawned, spawnNpm, stopGroup, waitFor } from '../test/cli';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { freePort } from '../test/ports';
import { relayWorkflowId } from '../workflows/webhook/shared';
import { type DevServer, startDevServer } from './dev-server';

/** What a process wrote on stderr, without npm's own lines. */
function lines(spawned: Spawned): string[] {
  return spawned
    .errors()
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^npm (warn|error|notice)/.test(line));
}

function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Temporal SDK's core (its Rust half) logs on its own: by default straight to stderr, coloured and
 * unstructured. Those lines broke the one-line refusal of `npm start` when its dev server died (the
 * core's "gRPC call … retried 7 times" warnings came between the service's line and its exit) and
 * every log collector's JSON parsing. They go through the service's logger, as JSON.
 */
describe('the worker logs what the Temporal core says as JSON, also when its server goes away', () => {
  let database: TestDatabase;
  let server: DevServer;
  let worker: Spawned | undefined;

  before(async () => {
    database = await createTestDatabase();
    server = await startDevServer({ binary: process.env.TEMPORAL_CLI!, port: await freePort(), uiPort: 0, headless: true });
  });

  after(async () => {
    if (worker) await stopGroup(worker.child.pid!, 'SIGKILL').catch(() => undefined);
    await server.stop().catch(() => undefined);
    await database.drop();
  });

  it('every stderr line of a worker whose Temporal server was killed is JSON, the core’s own lines among them', async () => {
    const { SVC_WORKFLOW_BUNDLE, ...inherited } = process.env;
    const port = await freePort();
    const taskQueue = `logs-${randomBase62(8)}`;
    worker = spawnNpm(['run', '--silent', 'worker'], {
      ...inherited,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: server.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      PORT: String(port),
      // At debug the core's info lines are logged too (it says what it starts): something of its own to see.
      LOG_LEVEL: 'debug',
    });
    const running = worker;
    await waitFor('the worker to poll', () => /"msg":"worker polling"/.test(running.output()), 90_000).catch((error: Error) =>
      assert.fail(`${error.message}\n${running.output()}`),
    );
    // The outbox relay's activity runs (it rests listening for commits): the stop below cancels it,
    // and the worker then reports that to a server that is gone.
    const connection = await Connection.connect({ address: server.address });
    try {
      const relay = new Client({ connection }).workflow.getHandle(relayWorkflowId(taskQueue));
      await waitFor('the relay activity to run', async () => ((await relay.describe()).raw.pendingActivities?.length ?? 0) > 0, 60_000);
    } finally {
      await connection.close();
    }
    // Nothing is wrong yet: a worker that started well warns of nothing (the bulk lane's worker runs
    // activities only by design, and the core's notice of it is a debug line).
    const warnings = lines(running).filter((line) => /"level":"(warn|error)"/.test(line));
    assert.deepEqual(warnings, [], 'warnings of a worker that started well');
    process.kill(server.pid, 'SIGKILL');
    await stopGroup(running.child.pid!, 'SIGTERM', 90_000);
    const core = lines(running).filter((line) => /"component":"temporal"|temporalio_/.test(line));
    assert.ok(core.length > 0, `the core said nothing:\n${running.errors()}`);
    // The service's own line about the signal aside, every line is JSON.
    const raw = lines(running).filter((line) => !isJson(line));
    assert.deepEqual(raw, ['SIGTERM: stopping ...'], 'lines that are not JSON on the worker’s stderr');
  });
});
