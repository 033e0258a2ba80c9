import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ActivityFailure } from '@temporalio/common';
import { tsToMs } from '@temporalio/common/lib/time';
import type { TransferActivities } from '../../activities/transfers/activities';
import type { ReleaseState } from '../../activities/transfers/release';
import { waitFor } from '../../test/wait';
import { connectWorkflowTestServer, type WorkflowTestServer } from '../../test/workflow-server';
import { TRANSFER_WORKFLOW, type TransferWorkflowInput, transferWorkflowId, wakeSignal } from './shared';
import type { transferWorkflow } from './workflow';

/** The checkRelease calls, one transfer id each, answered from a script (its last answer repeats); an Error is thrown. */
class Calls {
  readonly list: string[] = [];

  answer(id: string, answers: ReadonlyArray<ReleaseState | Error>): ReleaseState {
    const answer = answers[Math.min(this.list.length, answers.length - 1)];
    this.list.push(id);
    if (answer instanceof Error) throw answer;
    return answer;
  }

  async reached(count: number): Promise<void> {
    for (const until = Date.now() + 15_000; this.list.length < count; await sleep(20))
      if (Date.now() > until) throw new Error(`waited for ${count} checkRelease calls, saw ${this.list.length}`);
  }
}

/** The durations of the timers the workflow started (a condition's timeout is one), in order. */
async function timers(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) =>
    event.timerStartedEventAttributes ? [tsToMs(event.timerStartedEventAttributes.startToFireTimeout)] : [],
  );
}

const ATTEMPTS = 3;

describe('transferWorkflow against mocked activities (no database)', { timeout: 60_000 }, () => {
  let server: WorkflowTestServer;
  let client: Client;

  before(async () => {
    server = await connectWorkflowTestServer();
    ({ client } = server);
  });
  after(() => server?.close());

  /** Starts one workflow per answer list, each for a new transfer, on a worker of their own, and runs `body` while it runs. */
  async function run(
    scripts: Array<ReadonlyArray<ReleaseState | Error>>,
    recheckMs: number,
    body: (started: Array<{ handle: WorkflowHandle<typeof transferWorkflow>; calls: Calls; id: string }>) => Promise<void>,
    extra: Partial<TransferWorkflowInput> = {},
  ): Promise<void> {
    const calls = scripts.map(() => new Calls());
    const ids: string[] = scripts.map(() => randomUUID());
    const activities: TransferActivities = {
      async checkRelease(transferId: string) {
        const which = ids.indexOf(transferId);
        return calls[which].answer(transferId, scripts[which]);
      },
    };
    await server.runOnOwnWorker(activities, async (taskQueue) => {
      const started = await Promise.all(
        ids.map(async (id, i) => {
          const input: TransferWorkflowInput = {
            transferId: id,
            recheckMs,
            activityTimeoutMs: 5000,
            retryInitialMs: 50,
            retryMaxMs: 100,
            activityAttempts: ATTEMPTS,
            ...extra,
          };
          const handle = await client.workflow.start<typeof transferWorkflow>(TRANSFER_WORKFLOW, {
            taskQueue,
            workflowId: transferWorkflowId(id),
            args: [input],
          });
          return { handle, calls: calls[i], id };
        }),
      );
      await body(started);
    });
  }

  it('checks the package at once and ends with the state checkRelease reports, for each final one', async () => {
    const finals: ReleaseState[] = ['released', 'cancelled', 'blocked', 'abandoned'];
    // A state taken for not final would be checked again after 300 ms, and answered 'released'.
    await run(
      finals.map((state) => [state, 'released']),
      300,
      async (started) => {
        const results = await Promise.all(started.map(({ handle }) => handle.result()));
        assert.deepEqual(
          results,
          finals.map((status) => ({ status })),
        );
        for (const { calls, id } of started) assert.deepEqual(calls.list, [id]);
      },
    );
  });

  it('while waiting, each wake checks again at once, long before recheckMs, and only once', async () => {
    await run([['waiting', 'waiting', 'released']], 60_000, async ([{ handle, calls, id }]) => {
      await calls.reached(1);
      await sleep(300);
      assert.deepEqual(calls.list, [id], 'no second check before the wake');
      // With recheckMs at 60 s, a check within reached()'s 15 s is the wake's.
      await handle.signal(wakeSignal);
      await calls.reached(2);
      await sleep(300);
      assert.deepEqual(calls.list, [id, id], 'one check for one wake');
      await handle.signal(wakeSignal);
      assert.deepEqual(await handle.result(), { status: 'released' });
      assert.deepEqual(calls.list, [id, id, id]);
    });
  });

  it('without a wake, checks again every recheckMs until a final state', async () => {
    await run([['waiting', 'waiting', 'cancelled']], 300, async ([{ handle, calls, id }]) => {
      assert.deepEqual(await handle.result(), { status: 'cancelled' });
      assert.deepEqual(calls.list, [id, id, id]);
      assert.deepEqual(await timers(handle), [300, 300]);
    });
  });

  it('a checkRelease that fails is retried within activityAttempts, and the workflow goes on with its answer', async () => {
    await run([[new Error('database unavailable'), 'released']], 60_000, async ([{ handle, calls, id }]) => {
      assert.deepEqual(await handle.result(), { status: 'released' });
      assert.deepEqual(calls.list, [id, id]);
    });
  });

  it('a checkRelease failing activityAttempts times fails the workflow: the wait ends without a state', async () => {
    await run([[new Error('database unavailable')]], 60_000, async ([{ handle, calls, id }]) => {
      const failure = await handle.result().then(
        () => assert.fail('the workflow completed'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof WorkflowFailedError, String(failure));
      assert.ok(failure.cause instanceof ActivityFailure, String(failure.cause));
      assert.deepEqual(calls.list, Array(ATTEMPTS).fill(id));
    });
  });

  it('a long wait starts afresh every roundsPerRun looks (continue-as-new), so its history stays short, and ends with the final state', async () => {
    await run(
      [['waiting', 'waiting', 'waiting', 'waiting', 'released']],
      100,
      async ([{ handle, calls, id }]) => {
        // The handle follows the runs: two looks per run, so the fifth look is the third run's first.
        assert.deepEqual(await handle.result(), { status: 'released' });
        assert.deepEqual(calls.list, [id, id, id, id, id]);
        const runs = await waitFor('three runs of the one workflow id', async () => {
          const found: string[] = [];
          for await (const execution of client.workflow.list({ query: `WorkflowId = '${transferWorkflowId(id)}'` }))
            found.push(execution.status.name);
          return found.length === 3 && found;
        });
        assert.deepEqual([...runs].sort(), ['COMPLETED', 'CONTINUED_AS_NEW', 'CONTINUED_AS_NEW']);
      },
      { roundsPerRun: 2 },
    );
  });
});
