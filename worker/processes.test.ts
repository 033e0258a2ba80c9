import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { randomBase62 } from '../activities/ids';
import { PING_WORKFLOW, pingWorkflowId, type PingResult } from '../workflows/ping/shared';
import { createTestDatabase, type TestDatabase } from '../test/db';
import { createAccount } from '../test/factories';
import { ROOT } from '../test/cli';
import { call } from '../test/http';
import { freePort } from '../test/ports';
import { Client, Connection } from '@temporalio/client';

function npm(script: string, env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npm', ['run', '--silent', script], { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

function spawnNpm(script: string, env: Record<string, string | undefined>): { child: ChildProcess; output: () => string } {
  const child = spawn('npm', ['run', '--silent', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the whole process group, as an orchestrator stops a service; resolves once every process is gone. */
async function stop(child: ChildProcess): Promise<void> {
  if (!groupAlive(child.pid!)) return;
  process.kill(-child.pid!, 'SIGTERM');
  const deadline = Date.now() + 30_000;
  while (groupAlive(child.pid!)) {
    if (Date.now() > deadline) {
      process.kill(-child.pid!, 'SIGKILL');
      throw new Error('the process group did not stop within 30 s of SIGTERM');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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
    for (const child of children) await stop(child).catch(() => undefined);
    await database.drop();
  });

  it('refuse to start without DATABASE_URL or TEMPORAL_ADDRESS, saying which', async () => {
    const { DATABASE_URL, TEMPORAL_ADDRESS, ...bare } = env;
    for (const script of ['api', 'worker']) {
      const result = await npm(script, bare);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, new RegExp(`npm run ${script} needs DATABASE_URL and TEMPORAL_ADDRESS`));
    }
  });

  it('refuse to run on a database that is not migrated', async () => {
    const result = await npm('api', env);
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /pending migration.*npm run migrate/);
  });

  it('run as separate processes once migrated: the API serves, the worker runs workflows', async () => {
    const migrated = await npm('migrate', env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.ok(JSON.parse(migrated.stdout).applied.length >= 2);

    const api = spawnNpm('api', env);
    const worker = spawnNpm('worker', env);
    children.push(api.child, worker.child);

    const base = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    let health;
    while (Date.now() < deadline) {
      health = await call(base, 'GET', '/v1/health').catch(() => undefined);
      if (health?.body?.status === 'ok') break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    assert.equal(health?.body?.status, 'ok', `api:\n${api.output()}\nworker:\n${worker.output()}`);
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

    await stop(api.child);
    await stop(worker.child);
    assert.match(api.output(), /"msg":"stopped"/, api.output());
    assert.match(worker.output(), /"msg":"stopped"/, worker.output());
    assert.ok(!api.output().includes(account.key), 'the API logged a key');
  });
});
