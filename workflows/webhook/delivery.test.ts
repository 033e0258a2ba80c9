import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { tsToMs } from '@temporalio/common/lib/time';
import type { WebhookActivities } from '../../activities/webhooks/activities';
import type { AttemptResult } from '../../activities/webhooks/delivery';
import { waitFor } from '../../test/wait';
import { connectWorkflowTestServer, type WorkflowTestServer } from '../../test/workflow-server';
import { workStatusQuery } from '../operator-view';
import type { webhookDeliveryWorkflow } from './delivery';
import { DELIVERY_WORKFLOW, type DeliveryWorkflowInput, deliveryWorkflowId, retryNowSignal } from './shared';

const FAILED: AttemptResult = { done: false, delivered: false, statusCode: 503, error: 'HTTP 503' };
const DELIVERED: AttemptResult = { done: true, delivered: true, statusCode: 200 };
/** The webhook was deleted meanwhile: nothing more to do, nothing delivered. */
const GONE: AttemptResult = { done: true, delivered: false };

type Call = ['attemptDelivery', string, number] | ['giveUpDelivery', string];

/** Mocked activities recording their calls; attempts are answered in order from `answers` (the last repeats; an Error is thrown). */
function mockedActivities(
  calls: Call[],
  answers: Array<AttemptResult | Error>,
): Pick<WebhookActivities, 'attemptDelivery' | 'giveUpDelivery'> {
  let made = 0;
  return {
    async attemptDelivery(deliveryId: string, attempt: number) {
      calls.push(['attemptDelivery', deliveryId, attempt]);
      const answer = answers[Math.min(made++, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async giveUpDelivery(deliveryId: string) {
      calls.push(['giveUpDelivery', deliveryId]);
    },
  };
}

/** The durations of the timers (sleeps) the workflow started, in order. */
async function timers(handle: WorkflowHandle): Promise<number[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? []).flatMap((event) =>
    event.timerStartedEventAttributes ? [tsToMs(event.timerStartedEventAttributes.startToFireTimeout)] : [],
  );
}

describe('webhookDeliveryWorkflow against mocked activities (no database)', { timeout: 60_000 }, () => {
  let server: WorkflowTestServer;
  let client: Client;

  before(async () => {
    server = await connectWorkflowTestServer();
    ({ client } = server);
  });
  after(() => server?.close());

  /** Runs the workflow for a new delivery to its end on a worker of its own; answers its result, the calls made and its timers. */
  async function deliver(
    answers: Array<AttemptResult | Error>,
    durations: Omit<DeliveryWorkflowInput, 'deliveryId' | 'attemptTimeoutMs'>,
    meanwhile?: (handle: WorkflowHandle<typeof webhookDeliveryWorkflow>) => Promise<void>,
  ) {
    const calls: Call[] = [];
    const id = randomUUID();
    const input: DeliveryWorkflowInput = { deliveryId: id, attemptTimeoutMs: 1000, ...durations };
    return server.runOnOwnWorker(mockedActivities(calls, answers), async (taskQueue) => {
      const handle = await client.workflow.start<typeof webhookDeliveryWorkflow>(DELIVERY_WORKFLOW, {
        taskQueue,
        workflowId: deliveryWorkflowId(id),
        args: [input],
      });
      await meanwhile?.(handle);
      const result = await handle.result();
      return { id, result, calls, timers: await timers(handle) };
    });
  }

  it('after the relay’s first attempt, waits retryInitialMs, then attempt 2 is delivered and ends it', async () => {
    const { id, result, calls, timers } = await deliver([DELIVERED], {
      retryInitialMs: 100,
      retryMaxMs: 400,
      giveUpMs: 60_000,
      attemptsMade: 1,
    });
    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(calls, [['attemptDelivery', id, 2]]);
    assert.deepEqual(timers, [100]);
  });

  it('without attemptsMade (executions from before it existed), makes attempt 1 at once', async () => {
    const { id, result, calls, timers } = await deliver([DELIVERED], { retryInitialMs: 100, retryMaxMs: 400, giveUpMs: 60_000 });
    assert.deepEqual(result, { delivered: true, attempts: 1 });
    assert.deepEqual(calls, [['attemptDelivery', id, 1]]);
    assert.deepEqual(timers, []);
  });

  it('retries failed attempts with the wait doubling up to retryMaxMs until one is delivered, never giving up', async () => {
    const { id, result, calls, timers } = await deliver([FAILED, FAILED, DELIVERED], {
      retryInitialMs: 100,
      retryMaxMs: 300,
      giveUpMs: 60_000,
      attemptsMade: 1,
    });
    assert.deepEqual(result, { delivered: true, attempts: 4 });
    assert.deepEqual(calls, [
      ['attemptDelivery', id, 2],
      ['attemptDelivery', id, 3],
      ['attemptDelivery', id, 4],
    ]);
    assert.deepEqual(timers, [100, 200, 300]);
  });

  it('gives up once the next wait would pass giveUpMs: records the give-up and answers not delivered', async () => {
    // Attempt 2 comes at 1 s (the dev server may fire a timer up to about 1 s late, so by 2.1 s): 2.1 s + the next wait of 2 s
    // stay within 5.5 s, so it waits. Attempt 3 comes at 3 s or later: 3 s + the next wait of 4 s pass 5.5 s, so it gives up.
    const { id, result, calls, timers } = await deliver([FAILED], {
      retryInitialMs: 1000,
      retryMaxMs: 10_000,
      giveUpMs: 5500,
      attemptsMade: 1,
    });
    assert.deepEqual(result, { delivered: false, attempts: 3 });
    assert.deepEqual(calls, [
      ['attemptDelivery', id, 2],
      ['attemptDelivery', id, 3],
      ['giveUpDelivery', id],
    ]);
    assert.deepEqual(timers, [1000, 2000]);
  });

  it('an attempt that finds nothing more to do (the webhook was deleted) ends it undelivered without giving up', async () => {
    // Were it to go on, attempt 4 would be delivered.
    const { id, result, calls } = await deliver([FAILED, GONE, DELIVERED], {
      retryInitialMs: 100,
      retryMaxMs: 400,
      giveUpMs: 60_000,
      attemptsMade: 1,
    });
    assert.deepEqual(result, { delivered: false, attempts: 3 });
    assert.deepEqual(calls, [
      ['attemptDelivery', id, 2],
      ['attemptDelivery', id, 3],
    ]);
  });

  it('an attempt whose activity fails is retried as the same attempt, not counted as a failed delivery', async () => {
    const { id, result, calls, timers } = await deliver([new Error('worker lost its network'), DELIVERED], {
      retryInitialMs: 100,
      retryMaxMs: 400,
      giveUpMs: 60_000,
      attemptsMade: 1,
    });
    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(calls, [
      ['attemptDelivery', id, 2],
      ['attemptDelivery', id, 2],
    ]);
    assert.deepEqual(timers, [100]);
  });

  it('an operator’s retry-now ends the back-off wait at once: the next attempt is made long before it was due', async () => {
    const { result, calls, timers } = await deliver(
      [DELIVERED],
      { retryInitialMs: 600_000, retryMaxMs: 600_000, giveUpMs: 3_600_000, attemptsMade: 1 },
      async (handle) => {
        // The status says what it waits for: attempt 2, after its back-off.
        const status = await waitFor('the back-off wait', async () => {
          const now = await handle.query(workStatusQuery);
          return /attempt 2 after 10 min/.test(now.waiting_for) && now;
        });
        assert.equal(status.state, 'pending');
        await handle.signal(retryNowSignal);
      },
    );
    assert.deepEqual(result, { delivered: true, attempts: 2 });
    assert.deepEqual(
      calls.map((call) => call[0]),
      ['attemptDelivery'],
    );
    assert.deepEqual(timers, [600_000], 'the one back-off timer, cut short');
  });
});
