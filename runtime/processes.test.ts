import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Client, Connection } from '@temporalio/client';
import { randomBase62 } from '../lib/ids';
import { runNpm, spawnNpm, stopGroup, waitFor } from '../test/cli';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { createAccount } from '../test/factories';
import { call } from '../test/http';
import { freePort } from '../test/ports';
import { PING_WORKFLOW, type PingResult, pingWorkflowId } from '../workflows/ping/shared';

describe('production entry points: npm run migrate, api and worker', () => {
  let database: TestDatabase;
  let env: Record<string, string | undefined>;
  let port: number;
  const children: ChildProcess[] = [];

  before(async () => {
    database = await createTestDatabase({ migrate: false });
    port = await freePort();
    const { SVC_WORKFLOW_BUNDLE, ...inherited } = process.env;
    env = {
      ...inherited,
      DATABASE_URL: database.url,
      TEMPORAL_TASK_QUEUE: `prod-${randomBase62(8)}`,
      PORT: String(port),
      LOG_LEVEL: 'info',
    };
  });

  after(async () => {
    for (const child of children) await stopGroup(child.pid!, 'SIGTERM').catch(() => undefined);
    await database.drop();
  });

  it('refuse to start without DATABASE_URL or TEMPORAL_ADDRESS, saying which', async () => {
    const { DATABASE_URL, TEMPORAL_ADDRESS, ...bare } = env;
    for (const script of ['api', 'worker']) {
      const result = await runNpm(script, [], bare);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, new RegExp(`npm run ${script} needs DATABASE_URL and TEMPORAL_ADDRESS`));
    }
  });

  it('refuse to run on a database that is not migrated', async () => {
    const result = await runNpm('api', [], env);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /pending migration.*npm run migrate/);
  });

  it('run as separate processes once migrated: the API serves, the worker runs workflows', async () => {
    const migrated = await runNpm('migrate', [], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.ok(JSON.parse(migrated.stdout).applied.length >= 2);

    const api = spawnNpm(['run', '--silent', 'api'], env);
    const worker = spawnNpm(['run', '--silent', 'worker'], env);
    children.push(api.child, worker.child);

    const base = `http://127.0.0.1:${port}`;
    const health = await waitFor(
      'a healthy API and worker',
      async () => {
        const reply = await call(base, 'GET', '/v1/health').catch(() => undefined);
        return reply?.body?.status === 'ok' ? reply : undefined;
      },
      60_000,
    ).catch((error: Error) => assert.fail(`${error.message}\napi:\n${api.output()}\nworker:\n${worker.output()}`));
    assert.equal(health.body.database.driver, 'postgres');
    assert.ok(health.body.worker.pollers >= 1);

    const account = await createAccount(database.db);
    assert.equal((await call(base, 'GET', '/v1/me', { key: account.key })).status, 200);

    const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
    try {
      const client = new Client({ connection });
      const result = await client.workflow.execute<(input: { message: string }) => Promise<PingResult>>(PING_WORKFLOW, {
        taskQueue: env.TEMPORAL_TASK_QUEUE!,
        workflowId: pingWorkflowId(randomBase62(8)),
        args: [{ message: 'from another process' }],
        workflowExecutionTimeout: '30 seconds',
      });
      assert.equal(result.message, 'from another process');
    } finally {
      await connection.close();
    }

    await stopGroup(api.child.pid!, 'SIGTERM');
    await stopGroup(worker.child.pid!, 'SIGTERM');
    assert.match(api.output(), /"msg":"stopped"/, api.output());
    assert.match(worker.output(), /"msg":"stopped"/, worker.output());
    assert.ok(!api.output().includes(account.key), 'the API logged a key');
  });
});
