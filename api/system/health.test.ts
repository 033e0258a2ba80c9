import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBase62 } from '../../lib/ids';
import { call } from '../../test/http';
import { freePort } from '../../test/ports';
import { type Stack, startStack } from '../../test/stack';
import { PING_WORKFLOW, type PingResult, pingWorkflowId } from '../../workflows/ping/shared';

describe('GET /v1/health and the worker', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack();
  });
  after(() => stack.close());

  it('runs a workflow through the worker, which reaches the database', async () => {
    const { client, taskQueue } = stack.deps.temporal;
    const result = await client.workflow.execute<(input: { message: string }) => Promise<PingResult>>(PING_WORKFLOW, {
      taskQueue,
      workflowId: pingWorkflowId(randomBase62(8)),
      args: [{ message: 'hello' }],
      workflowExecutionTimeout: '30 seconds',
    });
    assert.equal(result.message, 'hello');
    assert.ok(Math.abs(Date.parse(result.database_time) - Date.now()) < 60_000, result.database_time);
  });

  it('reports the database, Temporal and the polling worker as reachable, with no key', async () => {
    const reply = await call(stack.url, 'GET', '/v1/health');
    assert.equal(reply.status, 200);
    assert.equal(reply.body.status, 'ok');
    assert.equal(reply.body.database.ok, true);
    assert.equal(reply.body.database.driver, 'postgres');
    assert.equal(reply.body.temporal.ok, true);
    assert.equal(reply.body.temporal.namespace, 'default');
    assert.equal(reply.body.worker.ok, true);
    assert.ok(reply.body.worker.pollers >= 1);
    assert.equal(reply.body.worker.task_queue, stack.config.temporal.taskQueue);
  });

  it('shares one check a second however often it is asked: one database query for a burst', async () => {
    const pings: string[] = [];
    const listener = (query: { sql: string }) => {
      if (/select now\(\) as now/.test(query.sql)) pings.push(query.sql);
    };
    stack.deps.db.on('query', listener);
    try {
      const before = pings.length;
      const burst = await Promise.all(Array.from({ length: 20 }, () => call(stack.url, 'GET', '/v1/health')));
      assert.ok(burst.every((reply) => reply.status === 200));
      for (let i = 0; i < 5; i += 1) assert.equal((await call(stack.url, 'GET', '/v1/health')).status, 200);
      assert.ok(pings.length - before <= 2, `${pings.length - before} database checks for 25 answers within a second or so`);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const later = pings.length;
      await call(stack.url, 'GET', '/v1/health');
      assert.equal(pings.length - later, 1, 'a second later the check runs again');
    } finally {
      stack.deps.db.removeListener('query', listener);
    }
  });

  it('reports degraded when no worker polls the task queue', async () => {
    const api = await stack.withEnv({ TEMPORAL_TASK_QUEUE: `idle-${randomBase62(8)}` });
    try {
      const reply = await call(api.url, 'GET', '/v1/health');
      assert.equal(reply.status, 200);
      assert.equal(reply.body.status, 'degraded');
      assert.equal(reply.body.worker.ok, false);
      assert.equal(reply.body.worker.pollers, 0);
    } finally {
      await api.close();
    }
  });

  it('answers 503 unavailable when Temporal cannot be reached, without leaking its address', async () => {
    const closedPort = await freePort();
    const api = await stack.withEnv({ TEMPORAL_ADDRESS: `127.0.0.1:${closedPort}` });
    try {
      const reply = await call(api.url, 'GET', '/v1/health');
      assert.equal(reply.status, 503);
      assert.equal(reply.body.status, 'unavailable');
      assert.equal(reply.body.temporal.ok, false);
      assert.equal(reply.body.database.ok, true);
      assert.ok(!reply.text.includes(String(closedPort)));
    } finally {
      await api.close();
    }
  });

  it('answers 503 unavailable when the database cannot be reached', async () => {
    const closedPort = await freePort();
    const api = await stack.withEnv({ DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/none` });
    try {
      const reply = await call(api.url, 'GET', '/v1/health');
      assert.equal(reply.status, 503);
      assert.equal(reply.body.database.ok, false);
      assert.equal(reply.body.temporal.ok, true);
    } finally {
      await api.close();
    }
  });
});
